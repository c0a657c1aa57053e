package io.fleetjobs.scheduler.core;

import static io.fleetjobs.scheduler.core.Jobs.aJob;
import static io.fleetjobs.scheduler.core.Machines.aMachine;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LabelFilterTest {
    private final LabelFilter filter = new LabelFilter();

    @ParameterizedTest(name = "job requires [{0}], machine has [{1}]: {2}")
    @CsvSource(delimiter = ';', value = {
            "'';              '';                      true",
            "'';              zone=a;                  true",
            "zone=a;          zone=a;                  true",
            "zone=a;          zone=a,disk=ssd;         true",
            "zone=a;          zone=b;                  false",
            "zone=a;          '';                      false",
            "zone=a;          ZONE=a;                  false",
            "zone=a,disk=ssd; zone=a,disk=ssd,gen=5;   true",
            "zone=a,disk=ssd; zone=a;                  false",
            "zone=a,disk=ssd; disk=ssd;                false",
            "zone=a,disk=ssd; zone=a,disk=hdd;         false"})
    void acceptsMachinesCarryingEveryRequiredLabel(String required, String carried, boolean accepts) {
        PendingJob job = aJob().labels(labels(required)).build();
        MachineState machine = aMachine("m1").labels(labels(carried)).state();
        assertThat(filter.accepts(job, machine)).isEqualTo(accepts);
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
            "zone=a;          2; 2 lack label zone=a",
            "zone=a;          1; 1 lacks label zone=a",
            "zone=a,disk=ssd; 4; 4 lack one of the labels disk=ssd, zone=a"})
    void explainsInWords(String required, int machines, String expected) {
        assertThat(filter.explain(aJob().labels(labels(required)).build(), machines)).isEqualTo(expected);
    }

    static Map<String, String> labels(String pairs) {
        Map<String, String> labels = new LinkedHashMap<>();
        if (!pairs.isBlank()) {
            for (String pair : pairs.split(",")) {
                String[] keyValue = pair.split("=");
                labels.put(keyValue[0].trim(), keyValue[1].trim());
            }
        }
        return labels;
    }
}
