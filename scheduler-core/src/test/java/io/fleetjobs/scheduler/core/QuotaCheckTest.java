package io.fleetjobs.scheduler.core;

import static io.fleetjobs.scheduler.core.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.UnplacedKind;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class QuotaCheckTest {

    @ParameterizedTest(name = "quota {0}m/{1}MB/{2}GPU, used {3}m/{4}MB/{5}GPU, job {6}m/{7}MB/{8}GPU: {9}")
    @CsvSource(nullValues = "-", value = {
            // quota (- = unlimited)  used                   job                  verdict (- = allowed)
            "-,     -,     -,         900000, 900000, 900,  1000, 1024, 8,        -",
            "4000,  -,     -,         3000,   0,      0,    1000, 1024, 0,        -",                // exactly up to the quota
            "4000,  -,     -,         3001,   0,      0,    1000, 1024, 0,        OVER_QUOTA",
            "-,     8192,  -,         0,      8192,   0,    1000, 1,    0,        OVER_QUOTA",
            "-,     -,     4,         0,      0,      4,    1000, 1024, 0,        -",                // a CPU job ignores a full GPU quota
            "-,     -,     4,         0,      0,      3,    1000, 1024, 2,        OVER_QUOTA",
            "-,     -,     4,         0,      0,      0,    1000, 1024, 5,        CAN_NEVER_FIT",    // more than the whole quota
            "-,     -,     0,         0,      0,      0,    1000, 1024, 1,        CAN_NEVER_FIT",
            "2000,  -,     4,         2000,   0,      0,    3000, 1024, 1,        CAN_NEVER_FIT"})   // never beats not-now
    void holdsBackJobsThatWouldExceedTheQuota(Long quotaCpu, Long quotaMemory, Integer quotaGpus,
                                              long usedCpu, long usedMemory, int usedGpus,
                                              long jobCpu, long jobMemory, int jobGpus, UnplacedKind verdict) {
        TenantView tenant = new TenantView(Jobs.TENANT_A, 1, usedCpu, usedMemory, usedGpus,
                new Quota(quotaCpu, quotaMemory, quotaGpus));
        TenantLedger ledger = new TenantLedger(Snapshots.of(List.of(), tenant));
        PendingJob job = aJob().cpuMillis(jobCpu).memoryMb(jobMemory).gpus(jobGpus).build();

        Unplaced heldBack = QuotaCheck.check(job, ledger.account(Jobs.TENANT_A));

        assertThat(heldBack == null ? null : heldBack.kind()).isEqualTo(verdict);
    }
}
