package io.fleetjobs.agent.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a working directory holds, as the cap and the disk's reserve count it, and its removal. */
class DiskUsageTest {
    /**
     * A shell line that hides 5 MiB past PATH_MAX (4,096 bytes), as a job may: two trees 10 directories of 250
     * characters deep, the file at the bottom of one, which then moves to the bottom of the other, about 5,000 bytes
     * down, where no absolute path reaches (each step's own paths stay shorter). Says "hidden".
     */
    static final String HIDE_PAST_PATH_MAX = "d=$(printf '%0250d' 0); p=$d/$d/$d/$d/$d/$d/$d/$d/$d/$d;"
            + " mkdir -p one/$p two/$p && head -c 5M /dev/zero > two/$p/hidden && mv two one/$p/ && echo hidden;";

    @TempDir
    Path dir;

    @Test
    void filesAndEntriesCountAsTheDiskHoldsThem() throws Exception {
        Files.write(dir.resolve("a"), new byte[10_000]);
        Files.createFile(dir.resolve("empty"));
        Files.createDirectories(dir.resolve("sub"));

        // the root, the sub-directory and the empty file a block each; the file its bytes
        assertThat(DiskUsage.of(dir)).isEqualTo(3 * DiskUsage.BLOCK + 10_000);
    }

    @Test
    void aTreeNestedPastTheLongestPathCannotBeMeasuredSoItCountsAsMoreThanAnyCapAndStillGoes() throws Exception {
        sh(HIDE_PAST_PATH_MAX);

        assertThat(DiskUsage.of(dir.resolve("work"), 1L << 30)).isEqualTo(DiskUsage.UNMEASURABLE);

        ProcessRunner.deleteTree(dir.resolve("work"));
        assertThat(dir.resolve("work")).doesNotExist();
    }

    private void sh(String script) throws Exception {
        Files.createDirectories(dir.resolve("work"));
        Process p = new ProcessBuilder("sh", "-c", script).directory(dir.resolve("work").toFile()).inheritIO().start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isZero();
    }
}
