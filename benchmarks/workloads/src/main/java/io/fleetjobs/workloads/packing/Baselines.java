package io.fleetjobs.workloads.packing;

import io.fleetjobs.workloads.packing.Cluster.Machine;
import io.fleetjobs.workloads.packing.Cluster.Task;
import java.util.Random;

/**
 * The textbook policies the platform is compared with, each choosing among the machines that fit (the same
 * constraints as the platform's): first-fit in id order, best-fit and worst-fit by what the machine would have
 * left (GPUs first, then CPU, as shares of the machine), and random.
 */
final class Baselines {
    private Baselines() {
    }

    /** Chooses a machine for a task, or -1 when none fits. */
    interface Policy {
        String name();

        int choose(Task task, Fleet fleet);
    }

    static Policy firstFit() {
        return new Policy() {
            public String name() {
                return "first-fit";
            }

            public int choose(Task task, Fleet fleet) {
                for (int i = 0; i < fleet.size(); i++) {
                    if (fleet.fits(task, i)) {
                        return i;
                    }
                }
                return -1;
            }
        };
    }

    static Policy bestFit() {
        return byLeftOver("best-fit", true);
    }

    static Policy worstFit() {
        return byLeftOver("worst-fit", false);
    }

    static Policy random(long seed) {
        Random random = new Random(seed);
        return new Policy() {
            public String name() {
                return "random";
            }

            public int choose(Task task, Fleet fleet) {
                int chosen = -1;
                int seen = 0;
                for (int i = 0; i < fleet.size(); i++) {
                    if (fleet.fits(task, i) && random.nextInt(++seen) == 0) {
                        chosen = i; // reservoir sampling: each fitting machine equally likely
                    }
                }
                return chosen;
            }
        };
    }

    private static Policy byLeftOver(String name, boolean least) {
        return new Policy() {
            public String name() {
                return name;
            }

            public int choose(Task task, Fleet fleet) {
                int chosen = -1;
                double chosenLeft = 0;
                for (int i = 0; i < fleet.size(); i++) {
                    if (!fleet.fits(task, i)) {
                        continue;
                    }
                    double left = leftOver(task, fleet, i);
                    if (chosen < 0 || (least ? left < chosenLeft : left > chosenLeft)) {
                        chosen = i;
                        chosenLeft = left;
                    }
                }
                return chosen;
            }
        };
    }

    /** What the machine would have left: free GPUs after the task (whole units first), then the share of CPU. */
    static double leftOver(Task task, Fleet fleet, int i) {
        Machine m = fleet.machines.get(i);
        double cpuShare = (double) (fleet.freeCpu[i] - task.cpuMillis()) / m.cpuMillis();
        return (fleet.freeGpus[i] - task.gpus()) + cpuShare;
    }
}
