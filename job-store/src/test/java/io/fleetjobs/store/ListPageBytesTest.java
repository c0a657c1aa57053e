package io.fleetjobs.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.Execution;
import io.fleetjobs.model.JobSpec;
import io.fleetjobs.model.Resources;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A page of the list carries at most {@link JobStore#PAGE_BYTES} of specs (the first job always) and says that more
 * follow: a tenant's 500 jobs of nearly a MiB each made one page half a GiB, and job-service ran out of memory.
 */
class ListPageBytesTest {
    private static StoreFixture f;

    @BeforeAll
    static void start() {
        f = new StoreFixture(2);
    }

    @AfterAll
    static void stop() {
        f.close();
    }

    private static UUID submitted(String name, int envBytes) {
        Map<String, String> env = new LinkedHashMap<>();
        for (int i = 0; envBytes > 0; i++, envBytes -= 60_000) {
            env.put("V" + i, "v".repeat(Math.min(60_000, envBytes)));
        }
        JobSpec spec = new JobSpec(name, null, null, Resources.of(1, 256), null, new Execution(List.of("true"), env, null),
                null, null);
        return ((Submission.Accepted) f.jobs.submit(f.tenant, spec, null)).job().id();
    }

    @Test
    void aPageStopsAtItsBytesAndTheNextOneGoesOn() {
        for (int n = 0; n < 6; n++) {
            submitted("big-" + n, 900_000);
        }
        JobStore.Page first = f.jobs.list(f.tenant, new JobFilter(null, null, null, null, null), null, 50);
        // specs of ~0.9 MB: the fifth starts at ~3.6 MB, under 4 MiB; the sixth would start past it
        assertThat(first.jobs()).hasSize(5);
        assertThat(first.more()).isTrue();
        JobStore.Page second = f.jobs.list(f.tenant, new JobFilter(null, null, null, null, null), first.jobs().getLast().id(), 50);
        assertThat(second.jobs()).hasSize(1);
        assertThat(second.more()).isFalse();

        for (int n = 0; n < 3; n++) {
            submitted("small-" + n, 100);
        }
        JobStore.Page smalls = f.jobs.list(f.tenant, new JobFilter(null, null, null, null, null), null, 2);
        assertThat(smalls.jobs()).extracting(j -> j.spec().name()).containsExactly("small-2", "small-1");
        assertThat(smalls.more()).isTrue();
    }
}
