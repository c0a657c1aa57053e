package io.fleetjobs.agent.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
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
        Files.createSymbolicLink(dir.resolve("link"), Path.of("/usr"));

        // the root, the sub-directory, the empty file and the link a block each (the link not followed); the file
        // its bytes, or the blocks the disk gave them (three of 4 KiB)
        assertThat(DiskUsage.of(dir)).isBetween(4 * DiskUsage.BLOCK + 10_000, 4 * DiskUsage.BLOCK + 12_288);
    }

    @Test
    void spaceGivenBeyondAFilesSizeCounts() throws Exception {
        sh(": > given && fallocate --keep-size --length 8M given");
        assertThat(Files.size(dir.resolve("work/given"))).isZero();

        assertThat(DiskUsage.of(dir.resolve("work"))).isGreaterThanOrEqualTo(8L << 20);
    }

    @Test
    void aTreeNestedPastTheLongestPathIsMeasuredAndRemoved() throws Exception {
        sh(HIDE_PAST_PATH_MAX);

        assertThat(DiskUsage.of(dir.resolve("work"), 1L << 30)).isGreaterThanOrEqualTo(5L << 20);

        ProcessRunner.deleteTree(dir.resolve("work"));
        assertThat(dir.resolve("work")).doesNotExist();
    }

    /**
     * A job swapping directories for FIFOs while the agent walks its tree (renameat2's RENAME_EXCHANGE, from perl): a
     * walk that opens a directory by path after looking at it could open the FIFO, and block there for good.
     */
    @Test
    @EnabledIf("amd64")
    void aDirectorySwappedForAFifoWhileMeasuredNeverHoldsTheWalk() throws Exception {
        Files.createDirectories(dir.resolve("work"));
        String swap = "for my $i (0..49) { mkdir \"d$i\"; system('mkfifo', \"p$i\") == 0 or die; }"
                + " print \"ready\\n\"; $| = 1;"
                + " while (1) { for my $i (0..49) { syscall(316, -100, \"d$i\", -100, \"p$i\", 2) } }";
        Process swapper = new ProcessBuilder("perl", "-e", swap).directory(dir.resolve("work").toFile())
                .redirectErrorStream(true).start();
        try {
            assertThat(new String(swapper.getInputStream().readNBytes(6))).isEqualTo("ready\n");
            assertTimeoutPreemptively(Duration.ofSeconds(120), () -> {
                for (int i = 0; i < 200; i++) {
                    assertThat(DiskUsage.of(dir.resolve("work"))).isGreaterThanOrEqualTo(DiskUsage.BLOCK);
                }
            });
        } finally {
            swapper.destroyForcibly().waitFor();
        }
    }

    /**
     * Removing an ended attempt's tree while something (a process of another attempt, holding a descriptor to a
     * directory in it) swaps one of its directories for a link to a directory outside: a removal that opens and
     * deletes by path follows the link, and deletes what lies outside, as root.
     */
    @Test
    @EnabledIf("amd64")
    void removingATreeWhileADirectoryInItIsSwappedForALinkNeverReachesOutsideIt() throws Exception {
        Path victim = Files.createDirectories(dir.resolve("victim"));
        for (int i = 0; i < 20; i++) {
            Files.writeString(victim.resolve("f" + i), "keep");
        }
        Files.createDirectories(dir.resolve("work"));
        String swap = "my ($y, $s) = (\"tree/x/y\", \"tree/x/s\"); $| = 1; print \"ready\\n\";" // syscall wants variables
                + " while (1) { syscall(316, -100, $y, -100, $s, 2) }";
        Path tree = dir.resolve("work/tree");
        for (int round = 0; round < 100; round++) {
            Path y = Files.createDirectories(tree.resolve("x/y"));
            for (int i = 0; i < 20; i++) {
                Files.writeString(y.resolve("f" + i), "x");
            }
            Files.createSymbolicLink(tree.resolve("x/s"), victim);
            Process swapper = new ProcessBuilder("perl", "-e", swap).directory(dir.resolve("work").toFile()).start();
            try {
                assertThat(new String(swapper.getInputStream().readNBytes(6))).isEqualTo("ready\n");
                ProcessRunner.deleteTree(tree);
            } catch (IOException e) {
                // the tree changed under rm: what is left goes at the next housekeeping
            } finally {
                swapper.destroyForcibly().waitFor();
            }
            assertThat(victim.toFile().list()).as("round " + round).hasSize(20);
            ProcessRunner.deleteTree(tree);
            assertThat(tree).doesNotExist();
        }
    }

    /** A job's build making and removing directories while it is measured: entries gone before find reached them. */
    @Test
    void aTreeChurnedWhileMeasuredIsStillMeasured() throws Exception {
        Files.createDirectories(dir.resolve("work"));
        Process churn = new ProcessBuilder("setsid", "sh", "-c", "echo churning; while :; do for i in $(seq 50); do mkdir -p t$i &&"
                + " : > t$i/a && : > t$i/b; done; rm -rf t*; done").directory(dir.resolve("work").toFile()).start();
        try {
            assertThat(new String(churn.getInputStream().readNBytes(9))).isEqualTo("churning\n");
            for (int i = 0; i < 30; i++) {
                assertThat(DiskUsage.of(dir.resolve("work"))).as("walk %d", i).isNotEqualTo(DiskUsage.UNMEASURABLE);
            }
        } finally {
            ProcessGroups.signal(churn.pid(), "KILL"); // the loop and whatever it runs now: a group of its own
            churn.waitFor();
            await().atMost(Duration.ofSeconds(10)).until(() -> !ProcessGroups.alive(churn.pid()));
        }
    }

    @Test
    void filesDeletedButMappedCountForTheProcessesThatMapThem() throws Exception {
        Files.createDirectories(dir.resolve("work"));
        // libc's mmap (Python's mmap module keeps a descriptor of its own), then the descriptor closed
        String map = "import ctypes, os, time\n"
                + "libc = ctypes.CDLL(None); libc.mmap.restype = ctypes.c_void_p\n"
                + "libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]\n"
                + "fd = os.open('mapped', os.O_RDWR | os.O_CREAT, 0o600); os.ftruncate(fd, 3 << 20)\n"
                + "libc.mmap(None, 3 << 20, 3, 1, fd, 0); os.close(fd); os.unlink('mapped')\n"
                + "print('mapped', flush=True); time.sleep(600)\n";
        Process holder = new ProcessBuilder("python3", "-c", map).directory(dir.resolve("work").toFile()).start();
        try {
            assertThat(new String(holder.getInputStream().readNBytes(7))).isEqualTo("mapped\n");
            assertThat(DiskUsage.heldOpen(List.of(holder.pid()), dir.resolve("work"))).isEqualTo(3L << 20);
        } finally {
            holder.destroyForcibly().waitFor();
        }
    }

    static boolean amd64() {
        return System.getProperty("os.arch").equals("amd64"); // renameat2 is syscall 316 there
    }

    @Test
    void filesDeletedButHeldOpenCountForTheProcessesThatHoldThem() throws Exception {
        Files.createDirectories(dir.resolve("work"));
        Process holder = new ProcessBuilder("sh", "-c", "exec 3>hidden; rm hidden; head -c 3M /dev/zero >&3;"
                + " echo held; exec sleep 600 3>&3").directory(dir.resolve("work").toFile()).start();
        try {
            assertThat(new String(holder.getInputStream().readNBytes(5))).isEqualTo("held\n");
            assertThat(DiskUsage.of(dir.resolve("work"))).as("the walk no longer sees it").isEqualTo(DiskUsage.BLOCK);
            assertThat(DiskUsage.heldOpen(List.of(holder.pid()), dir.resolve("work"))).isEqualTo(3L << 20);
            assertThat(DiskUsage.heldOpen(List.of(holder.pid()), dir.resolve("elsewhere"))).isZero();
        } finally {
            holder.destroyForcibly().waitFor();
        }
    }

    private void sh(String script) throws Exception {
        Files.createDirectories(dir.resolve("work"));
        Process p = new ProcessBuilder("sh", "-c", script).directory(dir.resolve("work").toFile()).inheritIO().start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isZero();
    }
}
