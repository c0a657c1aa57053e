package io.fleetjobs.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.MachineStatus;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What an operator set on a machine outlives the machine being declared LOST: a cordoned machine that restarted
 * (silent past the lost TTL, then joining again and heard) came back READY and took work, its cordon forgotten.
 */
class OperatorHoldTest {
    private static StoreFixture f;
    private static MachineStore machines;
    private static RepairStore repair;

    @BeforeAll
    static void start() {
        f = new StoreFixture(2);
        machines = new MachineStore(f.jdbc, f.jobs.clock());
        repair = new RepairStore(f.jdbc);
    }

    @AfterAll
    static void stop() {
        f.close();
    }

    private static MachineStatus status(String id) {
        return machines.get(id).orElseThrow().machine().status();
    }

    private static String reason(String id) {
        return machines.get(id).orElseThrow().statusReason();
    }

    /** The reconciler's verdict on a machine as it reads it now. */
    private static boolean reconcile(String id, MachineStatus to, String why) {
        RepairStore.MachineHeartbeat read = repair.liveness().stream().filter(m -> m.id().equals(id))
                .findFirst().orElseThrow();
        return repair.setStatus(read, to, why);
    }

    @Test
    void aCordonedMachineLostAndHeardAgainIsCordonedStill() {
        machines.register("held", "eu", Map.of(), null, 4_000, 8_192, 0);
        machines.statuses().operate("held", MachineStatus.CORDONED, "cordoned by ops: kernel update");

        assertThat(reconcile("held", MachineStatus.LOST, "no heartbeat for 40s")).isTrue();
        assertThat(status("held")).isEqualTo(MachineStatus.LOST);
        assertThat(reconcile("held", MachineStatus.READY, null)).isTrue();

        assertThat(status("held")).isEqualTo(MachineStatus.CORDONED);
        assertThat(reason("held")).isEqualTo("cordoned by ops: kernel update");
    }

    @Test
    void aDrainedMachineLostThenJoiningAgainIsDrainingStill() {
        machines.register("drained", "eu", Map.of(), null, 4_000, 8_192, 0);
        machines.statuses().operate("drained", MachineStatus.DRAINING, "drained by ops: disk");
        reconcile("drained", MachineStatus.LOST, "no heartbeat for 40s");

        machines.join("drained", "eu", Map.of(), null, 4_000, 8_192, 0, new byte[] {9});

        assertThat(status("drained")).isEqualTo(MachineStatus.DRAINING);
        assertThat(reason("drained")).isEqualTo("drained by ops: disk");
    }

    @Test
    void anUncordonedMachineLostAndHeardAgainIsReady() {
        machines.register("freed", "eu", Map.of(), null, 4_000, 8_192, 0);
        machines.statuses().operate("freed", MachineStatus.CORDONED, "cordoned by ops: x");
        machines.statuses().operate("freed", MachineStatus.READY, "uncordoned by ops: done");
        reconcile("freed", MachineStatus.LOST, "no heartbeat for 40s");
        reconcile("freed", MachineStatus.READY, null);

        assertThat(status("freed")).isEqualTo(MachineStatus.READY);
        assertThat(reason("freed")).isNull();
    }
}
