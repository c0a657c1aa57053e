package io.fleetjobs.agent.process;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What the sandbox's steps beyond its base cost an attempt's start ({@link Sandbox.Hardening}): {@code true} started
 * and awaited, each way, in turns. A benchmark, not a test: its name keeps it out of {@code ./mvnw verify}, and it
 * asserts nothing of time; docs/benchmarks.md gives the command and its figures. Root only.
 */
class SandboxStartCost {
    private static final int STARTS = 40;

    @Test
    void startsOfTrueWithAndWithoutTheSteps() throws Exception {
        assumeTrue(ProcessRunner.agentUid() == 0, "not root");
        List<Set<Sandbox.Hardening>> ways = List.of(Set.of(), Sandbox.Hardening.candidates());
        List<String> lines = new ArrayList<>();
        for (int round = 0; round < 2; round++) {
            for (Set<Sandbox.Hardening> steps : ways) {
                List<String> argv = new Sandbox(SandboxedRunnerTest.FIRST_UID + 93, 1 << 20, List.of(), null,
                        List.of(), steps).argv(List.of("true"));
                long[] took = new long[STARTS];
                for (int i = 0; i < STARTS; i++) {
                    long started = System.nanoTime();
                    ProcessBuilder builder = new ProcessBuilder(argv).directory(new File("/"))
                            .redirectErrorStream(true);
                    builder.environment().clear();
                    builder.environment().putAll(Sandbox.ROOT_ENVIRONMENT);
                    Process p = SandboxedRunnerTest.gateOpened(builder);
                    String said = new String(p.getInputStream().readAllBytes(), UTF_8);
                    if (p.waitFor() != 0) {
                        throw new IllegalStateException("exit " + p.exitValue() + ": " + said);
                    }
                    took[i] = System.nanoTime() - started;
                }
                Arrays.sort(took);
                lines.add(String.format("round %d, steps %s: median %.1f ms, p90 %.1f ms (%d starts)", round + 1,
                        steps, took[STARTS / 2] / 1e6, took[STARTS * 9 / 10] / 1e6, STARTS));
            }
        }
        lines.forEach(System.out::println);
    }
}
