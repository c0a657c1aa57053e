package io.fleetjobs.scheduler.core;

import java.util.Arrays;

/**
 * The schedulable machines of one region and GPU type, in buckets by free capacity, so that a job
 * visits only machines with at least its GPUs and CPU free, starting from the tightest or the loosest.
 *
 * <pre>
 *            free CPU bucket (log-linear: 8 per doubling) -->
 *   free  0 | [m7]     |          | [m2, m9] | ...
 *   GPUs  1 |          | [m4]     |          | ...
 *    |    2 | [m1, m3] |          | [m5]     | ...
 *    v    . |  ...
 * </pre>
 *
 * Rows are free GPUs, exactly; columns are free CPU on a log-linear scale, eight per doubling, so the
 * machines of one bucket differ by less than an eighth in free CPU. Building is linear (no sorting),
 * which matters because every plan builds its own. Within a bucket machines keep the order they came
 * in (snapshot order, which is id order) until a placement moves one (swap with the last). Rows and
 * columns are allocated as machines need them.
 *
 * <p>A machine's bucket follows its free capacity: call {@link #update} after every change.
 */
final class Pool {
    private static final int SUB_BUCKETS = 8;
    private static final int SUB_BITS = 3;

    private final MachineIndex.PoolKey key;
    /** rows[free GPUs][CPU column]; both dimensions grow as machines need them, null where empty. */
    private Bucket[][] rows = new Bucket[1][];

    Pool(MachineIndex.PoolKey key) {
        this.key = key;
    }

    MachineIndex.PoolKey key() {
        return key;
    }

    /** The column of a free CPU amount: monotone, exact below 8 millicores, then 8 columns per doubling. */
    static int cpuBucket(long freeCpuMillis) {
        if (freeCpuMillis < SUB_BUCKETS) {
            return (int) Math.max(0, freeCpuMillis);
        }
        int highBit = 63 - Long.numberOfLeadingZeros(freeCpuMillis);
        int shift = highBit - SUB_BITS;
        return (shift + 1) * SUB_BUCKETS + (int) ((freeCpuMillis >>> shift) & (SUB_BUCKETS - 1));
    }

    /**
     * Offers the visitor every machine of the pool with at least the job's GPUs and CPU free (and some
     * that have less CPU, from the first column: the visitor must check), row by row, tightest first or
     * loosest first, until the visitor returns false.
     */
    void visit(PendingJob job, boolean tightestFirst, Visitor visitor) {
        int firstRow = Math.max(0, job.gpuCount());
        int firstColumn = cpuBucket(job.cpuMillis());
        if (tightestFirst) {
            for (int row = firstRow; row < rows.length; row++) {
                Bucket[] columns = rows[row];
                for (int column = firstColumn; columns != null && column < columns.length; column++) {
                    if (!visitBucket(columns[column], visitor)) {
                        return;
                    }
                }
            }
        } else {
            for (int row = rows.length - 1; row >= firstRow; row--) {
                Bucket[] columns = rows[row];
                for (int column = columns == null ? -1 : columns.length - 1; column >= firstColumn; column--) {
                    if (!visitBucket(columns[column], visitor)) {
                        return;
                    }
                }
            }
        }
    }

    private static boolean visitBucket(Bucket bucket, Visitor visitor) {
        if (bucket == null) {
            return true;
        }
        for (int i = 0; i < bucket.size; i++) {
            if (!visitor.visit(bucket.machines[i])) {
                return false;
            }
        }
        return true;
    }

    /** Moves the machine to the bucket its free capacity now calls for. */
    void update(MachineState machine) {
        int row = row(machine);
        int column = cpuBucket(machine.freeCpuMillis());
        if (row != machine.row || column != machine.column) {
            rows[machine.row][machine.column].remove(machine);
            add(machine);
        }
    }

    /** Puts the machine in the bucket its free capacity calls for. */
    void add(MachineState machine) {
        int row = row(machine);
        int column = cpuBucket(machine.freeCpuMillis());
        if (row >= rows.length) {
            rows = Arrays.copyOf(rows, row + 1);
        }
        Bucket[] columns = rows[row];
        if (columns == null || column >= columns.length) {
            columns = columns == null ? new Bucket[column + 1] : Arrays.copyOf(columns, Math.max(column + 1, columns.length * 2));
            rows[row] = columns;
        }
        Bucket bucket = columns[column];
        if (bucket == null) {
            bucket = new Bucket();
            columns[column] = bucket;
        }
        machine.pool = this;
        machine.row = row;
        machine.column = column;
        bucket.add(machine);
    }

    private static int row(MachineState machine) {
        return Math.max(0, machine.freeGpus());
    }

    /** What a walk does with each machine it meets; false stops the walk. */
    @FunctionalInterface
    interface Visitor {
        boolean visit(MachineState machine);
    }

    /** A growable array; removal swaps the last machine into the hole. */
    private static final class Bucket {
        private MachineState[] machines = new MachineState[8];
        private int size;

        void add(MachineState machine) {
            if (size == machines.length) {
                machines = Arrays.copyOf(machines, size * 2);
            }
            machine.slot = size;
            machines[size++] = machine;
        }

        void remove(MachineState machine) {
            MachineState last = machines[--size];
            machines[machine.slot] = last;
            last.slot = machine.slot;
            machines[size] = null;
        }
    }
}
