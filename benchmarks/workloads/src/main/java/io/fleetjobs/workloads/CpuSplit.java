package io.fleetjobs.workloads;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where a workload's CPU went: each of the platform's processes, PostgreSQL's live processes, this load generator,
 * and the whole machine (from {@code /proc/stat}), as CPU time used so far; two snapshots make a split of a period.
 * A process that ended between them (a PostgreSQL backend closed) is not counted.
 */
record CpuSplit(Map<String, Duration> used) {
    static final String POSTGRES = "postgres";
    static final String LOAD = "load generator";
    static final String MACHINE = "machine";

    static CpuSplit of(BenchPlatform platform) {
        return of(platform.cpu());
    }

    /** The split with {@code processes} (CPU used so far, by name) as the platform's part. */
    static CpuSplit of(Map<String, Duration> processes) {
        Map<String, Duration> used = new LinkedHashMap<>(processes);
        used.put(POSTGRES, ProcessHandle.allProcesses()
                .filter(p -> p.info().command().map(c -> c.endsWith("/postgres") || c.equals("postgres")).orElse(false))
                .map(p -> p.info().totalCpuDuration().orElse(Duration.ZERO)).reduce(Duration.ZERO, Duration::plus));
        used.put(LOAD, ProcessHandle.current().info().totalCpuDuration().orElse(Duration.ZERO));
        used.put(MACHINE, machine());
        return new CpuSplit(used);
    }

    /** The machine's busy CPU time so far: user, nice, system, irq and softirq (in USER_HZ, 100 a second). */
    private static Duration machine() {
        try {
            String[] f = Files.readAllLines(Path.of("/proc/stat")).getFirst().trim().split("\\s+");
            long ticks = 0;
            for (int i : new int[] {1, 2, 3, 6, 7}) {
                ticks += Long.parseLong(f[i]);
            }
            return Duration.ofMillis(ticks * 10);
        } catch (IOException | RuntimeException e) {
            return Duration.ZERO;
        }
    }

    /** Prints each part's CPU over the period since {@code before}, in ms per {@code what} and in cores. */
    /** The CPU each of {@code platform}'s processes and {@code others} have used so far, by name. */
    static Map<String, Duration> processes(io.fleetjobs.local.LocalPlatform platform, Map<String, Process> others) {
        Map<String, Duration> used = new LinkedHashMap<>();
        for (String c : platform.components()) {
            platform.process(c).flatMap(p -> p.info().totalCpuDuration()).ifPresent(d -> used.put(c, d));
        }
        others.forEach((name, p) -> p.info().totalCpuDuration().ifPresent(d -> used.put(name, d)));
        return used;
    }

    void print(CpuSplit before, long count, String what, Duration period) {
        System.out.printf("%nCPU by process over the measured %d s (ms per %s; cores busy):%n", period.toSeconds(), what);
        used.forEach((name, now) -> {
            Duration spent = now.minus(before.used().getOrDefault(name, Duration.ZERO));
            System.out.printf("  %-24s %8.2f ms %6.2f cores%n", name, spent.toNanos() / 1e6 / Math.max(1, count),
                    spent.toNanos() / (double) period.toNanos());
        });
    }
}
