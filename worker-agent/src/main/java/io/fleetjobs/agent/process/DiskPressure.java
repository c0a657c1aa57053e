package io.fleetjobs.agent.process;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The disk all of a machine's working directories share. Each attempt's directory has its cap, but many attempts
 * each under theirs could together fill the disk, and then the agent could write no log and every job on the
 * machine would fail to write. Each attempt's watch tells this what its directory holds; when the disk's free
 * space falls below the reserve, the attempt holding the most (at least {@link #WORTH_EVICTING}) is the one
 * killed, as kubelet evicts by ephemeral storage: the job's fault ({@code DISK_LIMIT_EXCEEDED}). Before that, the
 * directories of attempts that ended go, oldest first, though their retention has not passed ({@code reclaim}): a
 * tenant whose short jobs each left gigabytes behind would otherwise fill the disk with what no one runs, and a
 * running attempt of another tenant would be killed in their place.
 */
final class DiskPressure {
    /** A directory holding less frees too little to be worth ending its attempt. */
    static final long WORTH_EVICTING = 1L << 20;

    private final long reserveSetting;
    private final Map<AttemptKey, Long> held = new ConcurrentHashMap<>();
    /** Removes what ended attempts left while the disk is below its reserve (the runner's); may do nothing. */
    private final Runnable reclaim;

    /** @param reserveSetting the free space kept, or -1 for {@link #reserve(long, long) the default} */
    DiskPressure(long reserveSetting) {
        this(reserveSetting, () -> { });
    }

    /** @param reclaim removes ended attempts' directories, oldest first, while the disk is below its reserve */
    DiskPressure(long reserveSetting, Runnable reclaim) {
        this.reserveSetting = reserveSetting;
        this.reclaim = reclaim;
    }

    /** A disk's free space and the reserve kept on it. */
    private record Space(long free, long reserve) {
        boolean isShort() {
            return free < reserve;
        }
    }

    /** The disk holding {@code directory} as it is now; empty when it cannot be read. */
    private Optional<Space> space(Path directory) {
        try {
            FileStore store = Files.getFileStore(directory);
            return Optional.of(new Space(store.getUsableSpace(), reserve(store.getTotalSpace(), reserveSetting)));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** Whether the disk holding {@code directory} has less free space than its reserve; false when unknown. */
    boolean belowReserve(Path directory) {
        return space(directory).map(Space::isShort).orElse(false);
    }

    /** The free space to keep on a disk of {@code totalBytes}: the setting, else 5% of it and at least 1 GiB. */
    static long reserve(long totalBytes, long setting) {
        return setting >= 0 ? setting : Math.max(1L << 30, totalBytes / 20);
    }

    /**
     * Records what the attempt's directory holds, and says why it must end when the disk is below its reserve and
     * this attempt holds the most of all; empty otherwise.
     */
    Optional<String> measured(AttemptKey key, long bytes, Path directory) {
        held.put(key, bytes);
        if (bytes < WORTH_EVICTING) {
            return Optional.empty();
        }
        for (Map.Entry<AttemptKey, Long> other : held.entrySet()) {
            if (!other.getKey().equals(key) && other.getValue() > bytes) {
                return Optional.empty();
            }
        }
        if (!belowReserve(directory)) {
            return Optional.empty();
        }
        reclaim.run();
        return space(directory).filter(Space::isShort).map(after -> "the machine's disk for working directories has "
                + (after.free() >> 20) + " MiB free, below its reserve of " + (after.reserve() >> 20)
                + " MiB, and this attempt's holds the most: " + (bytes >> 20) + " MiB");
    }

    /** The attempt ended: its directory no longer counts. */
    void forget(AttemptKey key) {
        held.remove(key);
    }
}
