package io.fleetjobs.workloads;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PgbenchTest {
    @Test
    void readsTheTpsOfPgbenchsReport() {
        String report = """
                pgbench (17.6)
                transaction type: <builtin: simple update>
                number of clients: 4
                latency average = 4.729 ms
                initial connection time = 12.301 ms
                tps = 845.871234 (without initial connection time)
                """;
        assertThat(Pgbench.parseTps(report)).hasValue(845.871234);
    }

    @Test
    void aReportWithoutTpsHasNone() {
        assertThat(Pgbench.parseTps("pgbench: error: connection to server failed")).isEmpty();
    }
}
