package io.fleetjobs.scheduler.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.Amounts;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What stays reserved. Each row is a story in steps, then what is held per machine and per tenant:
 * {@code reserve:a:m1@t1=1000/512/0+m2@t1=...} reserves under token {@code a} the placements of one
 * plan (machine, tenant, CPU millicores/MiB/GPUs; {@code reserve:a:} reserves an empty plan);
 * {@code release:a} releases token {@code a}. Totals read {@code m1=1000/512/0} ({@code -}: none).
 */
class ReservationsTest {

    @ParameterizedTest(name = "{0} -> {1} | {2}")
    @CsvSource(delimiter = ';', value = {
            "reserve:a:m1@t1=1000/512/0;                        m1=1000/512/0;             t1=1000/512/0",
            "reserve:a:m1@t1=1000/512/0+m1@t2=500/256/1;        m1=1500/768/1;             t1=1000/512/0 t2=500/256/1", // two jobs of a plan on one machine
            "reserve:a:m1@t1=1000/512/0+m2@t1=500/256/1;        m1=1000/512/0 m2=500/256/1; t1=1500/768/1",             // a plan over two machines
            "reserve:a:m1@t1=1000/512/0 reserve:b:m1@t1=500/256/1; m1=1500/768/1;          t1=1500/768/1",              // two plans add up
            "reserve:a:m1@t1=1000/512/0 reserve:a:m1@t1=1000/512/0; m1=1000/512/0;         t1=1000/512/0",              // reserving again replaces, never adds
            "reserve:a:m1@t1=1000/512/0 reserve:a:m2@t1=500/256/1; m2=500/256/1;           t1=500/256/1",               // the new plan in place of the old
            "reserve:a:m1@t1=1000/512/0 reserve:a:;             -;                         -",
            "reserve:a:m1@t1=1000/512/0 release:a;              -;                         -",
            "reserve:a:m1@t1=1000/512/0 release:a release:a;    -;                         -",                          // releasing twice is releasing once
            "release:a;                                         -;                         -",                          // releasing what was never reserved does nothing
            "release:a reserve:a:m1@t1=1000/512/0;              m1=1000/512/0;             t1=1000/512/0",              // nor stops a later reserve
            "reserve:a:m1@t1=1000/512/0 reserve:b:m2@t2=500/256/1 release:a; m2=500/256/1; t2=500/256/1",               // release frees only its own
            "reserve:a:m1@t1=1000/512/0 release:b;              m1=1000/512/0;             t1=1000/512/0"})
    void holdsWhatIsReservedUntilReleased(String steps, String machines, String tenants) {
        Reservations reservations = new Reservations();
        Map<String, Object> tokens = new TreeMap<>();
        for (String step : steps.trim().split("\\s+")) {
            String[] part = step.split(":", 3);
            Object token = tokens.computeIfAbsent(part[1], name -> new Object());
            switch (part[0]) {
                case "reserve" -> reservations.reserve(token, assignments(part[2]));
                case "release" -> reservations.release(token);
                default -> throw new IllegalArgumentException(step);
            }
        }
        List<Assignment> held = reservations.held();
        assertThat(totals(Reservations.byMachine(held))).isEqualTo(machines.trim());
        Map<String, Amounts> byTenant = new TreeMap<>();
        Reservations.byTenant(held).forEach((id, amounts) -> byTenant.put("t" + id.getLeastSignificantBits(), amounts));
        assertThat(totals(byTenant)).isEqualTo(tenants.trim());
    }

    @Test
    void sinceAMarkCountsWhatWasReleasedSinceAsWellAsWhatIsHeldNow() {
        Reservations reservations = new Reservations();
        Object a = new Object();
        Object b = new Object();
        Object c = new Object();
        reservations.reserve(a, assignments("m1@t1=1000/512/0"));
        reservations.reserve(b, assignments("m2@t1=500/256/0"));
        Reservations.Mark mark = reservations.mark(); // a read of the fleet begins
        reservations.release(a); // a commit that may have ended after the read's snapshot
        reservations.reserve(b, assignments("m2@t1=700/256/0")); // planned again: what it holds now counts
        reservations.reserve(c, assignments("m3@t1=100/64/1")); // planned during the read

        assertThat(totals(Reservations.byMachine(reservations.heldSince(mark))))
                .isEqualTo("m1=1000/512/0 m2=700/256/0 m3=100/64/1");
        assertThat(totals(Reservations.byMachine(reservations.held()))).isEqualTo("m2=700/256/0 m3=100/64/1");
        assertThat(totals(Reservations.byMachine(reservations.heldSince(reservations.mark()))))
                .as("a mark taken now adds nothing").isEqualTo("m2=700/256/0 m3=100/64/1");
    }

    private static List<Assignment> assignments(String plan) {
        List<Assignment> assignments = new ArrayList<>();
        int job = 0;
        for (String one : plan.isEmpty() ? new String[0] : plan.split("\\+")) {
            String machine = one.substring(0, one.indexOf('@'));
            long tenant = Long.parseLong(one.substring(one.indexOf("@t") + 2, one.indexOf('=')));
            String[] amounts = one.substring(one.indexOf('=') + 1).split("/");
            assignments.add(new Assignment(new UUID(1, job++), new UUID(0, tenant), machine, new Amounts(
                    Long.parseLong(amounts[0]), Long.parseLong(amounts[1]), Integer.parseInt(amounts[2]))));
        }
        return assignments;
    }

    private static String totals(Map<String, Amounts> totals) {
        if (totals.isEmpty()) {
            return "-";
        }
        List<String> words = new ArrayList<>();
        new TreeMap<>(totals).forEach((key, a) -> words.add(key + "=" + a.cpuMillis() + "/" + a.memoryMb() + "/" + a.gpus()));
        return String.join(" ", words);
    }
}
