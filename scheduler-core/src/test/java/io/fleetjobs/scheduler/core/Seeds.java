package io.fleetjobs.scheduler.core;

import java.util.function.LongConsumer;

/**
 * Runs a property over many seeded random cases. A failure names its seed; replay just that case with
 * {@code ./mvnw -pl scheduler-core test -Dtest=PlacementPropertyTest -Dplacement.seed=SEED}.
 */
final class Seeds {
    static final int CASES = 500;

    private Seeds() {
    }

    static void forEach(LongConsumer property) {
        String replay = System.getProperty("placement.seed");
        if (replay != null) {
            run(Long.parseLong(replay), property);
            return;
        }
        for (long seed = 1; seed <= CASES; seed++) {
            run(seed, property);
        }
    }

    private static void run(long seed, LongConsumer property) {
        try {
            property.accept(seed);
        } catch (AssertionError | RuntimeException failure) {
            String message = "property failed for seed " + seed + " (replay with -Dplacement.seed=" + seed + ")";
            System.err.println(message);
            throw new AssertionError(message + ": " + failure.getMessage(), failure);
        }
    }
}
