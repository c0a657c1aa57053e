package io.fleetjobs.bench;

import io.fleetjobs.scheduler.core.MachineView;
import io.fleetjobs.scheduler.core.Snapshot;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
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
 * What the caller pays before {@link PlacementBenchmark} starts: building a {@link Snapshot}, which
 * copies the machines, checks their ids are unique and keeps them in id order, sorting only when they
 * do not already come in it.
 *
 * <pre>java -jar benchmarks/jmh/target/benchmarks.jar SnapshotBenchmark -f 1 -wi 3 -w 5s -i 5 -r 5s</pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@Warmup(iterations = 3, time = 5)
@Measurement(iterations = 5, time = 5)
public class SnapshotBenchmark {

    @Param("10000")
    public int machines;

    /** Whether the machines come in id order (as from {@code ORDER BY id}) or shuffled. */
    @Param({"true", "false"})
    public boolean inIdOrder;

    private List<MachineView> views;

    @Setup(Level.Trial)
    public void setUp() {
        views = new ArrayList<>(Fleet.snapshot(42, machines, 1).machines());
        if (inIdOrder) {
            views.sort(Comparator.comparing(MachineView::id));
        } else {
            Collections.shuffle(views, new Random(7));
        }
    }

    @Benchmark
    public Snapshot build() {
        return new Snapshot(views, Map.of(), Fleet.FRESHNESS);
    }
}
