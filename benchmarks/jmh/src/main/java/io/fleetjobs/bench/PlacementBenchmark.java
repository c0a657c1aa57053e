package io.fleetjobs.bench;

import io.fleetjobs.scheduler.core.GpuDemand;
import io.fleetjobs.scheduler.core.PendingJob;
import io.fleetjobs.scheduler.core.PlacementEngine;
import io.fleetjobs.scheduler.core.Plan;
import io.fleetjobs.scheduler.core.Snapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The placement engine alone: one {@link PlacementEngine#plan} call per operation, on a snapshot of
 * {@code machines} machines and a batch of {@code batchSize} jobs ({@link Fleet}). Every call starts
 * from the same snapshot (the engine never changes it) and builds its own index, as the scheduler does
 * each cycle. Batches rotate through several seeds so the JIT does not see one batch only.
 *
 * <p>Reported: {@code plan} (calls per second) and the counters {@code placements} and {@code unplaced}
 * per second; {@code placements} is the figure to read against the target.
 *
 * <pre>java -jar benchmarks/jmh/target/benchmarks.jar PlacementBenchmark -f 1 -wi 3 -w 5s -i 5 -r 5s</pre>
 * (Shorter warm-ups, such as 2 x 2 s, leave the explanation path of the runs with never-fitting jobs
 * still interpreted during the first measured iterations.)
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@Warmup(iterations = 3, time = 5)
@Measurement(iterations = 5, time = 5)
public class PlacementBenchmark {
    private static final int TENANTS = 20;
    private static final int BATCHES = 16;

    @Param("10000")
    public int machines;

    @Param({"100", "1000"})
    public int batchSize;

    /** Jobs per thousand that no machine can host (a label nobody has), to include explanation cost. */
    @Param({"0", "10"})
    public int impossiblePerMille;

    private final PlacementEngine engine = new PlacementEngine();
    private Snapshot snapshot;
    private List<List<PendingJob>> batches;
    private int next;

    @Setup(Level.Trial)
    public void setUp() {
        batches = new ArrayList<>();
        List<PendingJob> all = new ArrayList<>();
        for (int seed = 1; seed <= BATCHES; seed++) {
            batches.add(Fleet.batch(seed, batchSize, TENANTS, impossiblePerMille));
            all.addAll(batches.getLast());
        }
        // the demand for GPU models of the jobs themselves, as the scheduler keeps it: the scarcity scorer at work
        Snapshot fleet = Fleet.snapshot(42, machines, TENANTS);
        snapshot = new Snapshot(fleet.machines(), fleet.tenants(), fleet.heartbeatFreshness(), GpuDemand.of(all));
    }

    /** Placements and unplaced jobs, reported per second next to the calls. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Decisions {
        public long placements;
        public long unplaced;

        @Setup(Level.Iteration)
        public void reset() {
            placements = 0;
            unplaced = 0;
        }
    }

    @Benchmark
    public Plan plan(Decisions decisions) {
        List<PendingJob> batch = batches.get(next++ % BATCHES);
        Plan plan = engine.plan(snapshot, batch);
        decisions.placements += plan.assignments().size();
        decisions.unplaced += plan.unplaced().size();
        return plan;
    }
}
