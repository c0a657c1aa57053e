package io.fleetjobs.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real Spring Boot jar (the worker agent's) run the way bin/run-local runs it: from an extracted copy, with
 * a class-data archive written by the first run and mapped by the next. (Here, beside the jars this build
 * makes; the class is local-platform's.)
 */
class BootJarsTest {
    private static final Path AGENT_JAR = Path.of("..", "worker-agent", "target", "worker-agent.jar").toAbsolutePath().normalize();

    @TempDir
    Path home;

    @Test
    void aBootJarRunsFromAnExtractedCopyWhoseArchiveTheNextRunMaps() throws Exception {
        BootJars jars = new BootJars(home.resolve("apps"), home.resolve("cds"));
        List<String> launch = jars.launch("agent", AGENT_JAR);
        assertThat(launch).contains("-XX:SharedArchiveFile=" + home.resolve("cds/agent.jsa"), "-XX:+AutoCreateSharedArchive");
        Path copy = Path.of(launch.getLast());
        assertThat(copy).isRegularFile().hasFileName("worker-agent.jar").isNotEqualTo(AGENT_JAR);
        assertThat(copy.resolveSibling("lib")).isDirectory();
        assertThat(jars.launch("agent", AGENT_JAR)).isEqualTo(launch); // extracted once per build of the jar

        // the agent refuses to start without a join token, and exits: cleanly enough to write the archive
        String first = run(launch);
        assertThat(first).contains("join-token");
        assertThat(home.resolve("cds/agent.jsa")).isNotEmptyFile();

        // the archive mapped, as the JVM's cds log says once asked (after the launch's own -Xlog:cds=off)
        List<String> mapped = new ArrayList<>(List.of("-Xshare:on"));
        mapped.addAll(launch);
        mapped.remove("-XX:+AutoCreateSharedArchive");
        mapped.add(mapped.indexOf("-jar"), "-Xlog:cds=info");
        String second = run(mapped);
        assertThat(second).contains("join-token").contains("Opened shared archive file " + home.resolve("cds/agent.jsa"));

        jars.removeStale(List.of(AGENT_JAR));
        assertThat(copy).exists();
        jars.removeStale(List.of());
        assertThat(copy).doesNotExist();
    }

    @Test
    void aJarThatIsNotABootJarRunsAsItIs() throws Exception {
        Path plain = home.resolve("plain.jar");
        Files.write(plain, new byte[] {'P', 'K', 5, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
        assertThat(new BootJars(home.resolve("apps"), home.resolve("cds")).launch("x", plain))
                .containsExactly("-jar", plain.toString());
    }

    private String run(List<String> launch) throws Exception {
        List<String> command = new ArrayList<>(List.of(Processes.javaBin(), "-Xmx96m", "-XX:TieredStopAtLevel=1"));
        command.addAll(launch);
        command.addAll(List.of("--jobs.worker.join-token=", "--jobs.worker.work-dir=" + home.resolve("work")));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(output).isNotZero();
        return output;
    }
}
