package io.fleetjobs.readme;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The executable README: a newcomer's first minutes, word for word. From a clean copy of the repository (the
 * working tree as git sees it: no {@code target/}) and a Maven repository without the project's own artifacts,
 * {@code bin/run-local} builds and starts the platform (on ports shifted by {@code JOBS_LOCAL_PORT_OFFSET}, so that
 * nothing else is disturbed); then the shell blocks of the sections "A five-minute tour", "Command line and SDK"
 * and "The jobs API" run in one bash, in order, as a person would paste them, and each command must print what the
 * README says it prints (the expectations below name the commands they are about: a README whose commands change
 * must change them too). The Java SDK snippet runs against the same platform, and so do the commands run-local
 * itself prints under "Try:". Ctrl-C's promise is checked last: SIGTERM leaves no process and no port behind.
 *
 * <p>The only edits to the README's text are the port (the gateway's {@code localhost:8080} becomes the shifted
 * one). The time from {@code bin/run-local} to the first job SUCCEEDED is printed, not asserted.
 */
class ReadmeTest {
    private static final Path REPOSITORY = Path.of(System.getProperty("repo.root", "..")).toAbsolutePath().normalize();
    private static final Path WORK = Path.of("target", "readme").toAbsolutePath();
    private static final Pattern UUID = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

    /** What the README says a command of a section prints: its exit status, and texts that appear in this order. */
    private record Expect(String section, String commandStart, int exitCode, List<String> inOrder) {
        static Expect of(String section, String commandStart, int exitCode, String... inOrder) {
            return new Expect(section, commandStart, exitCode, List.of(inOrder));
        }
    }

    private static final String TOUR = "A five-minute tour";
    private static final String CLI = "Command line and SDK";
    private static final String API = "The jobs API (through the gateway, port 8080)";

    private static final List<Expect> EXPECTED = List.of(
            Expect.of(TOUR, "bin/jobctl watch $ID", 0, "SUBMITTED", "QUEUED", "SCHEDULED", "RUNNING", "SUCCEEDED"),
            Expect.of(TOUR, "bin/jobctl logs $ID", 0, "hello from "),
            Expect.of(TOUR, "bin/jobctl events $ID", 0, "SUBMITTED", "QUEUED", "SCHEDULED", "RUNNING", "SUCCEEDED",
                    "exited with code 0"),
            Expect.of(TOUR, "bin/jobctl cancel $LONG && bin/jobctl watch $LONG", 2, "CANCELED"),
            Expect.of(TOUR, "bin/jobctl get $BIG", 0, "QUEUED", "0 of 2 machines fit: 2 lack GPU type H100"),
            Expect.of(TOUR, "bin/jobctl machines", 0, "local-1", "local-2"),
            Expect.of(TOUR, "bin/jobctl list --state QUEUED", 0, "too-big"),
            Expect.of(CLI, "bin/jobctl watch $ID", 0, "SUCCEEDED"),
            Expect.of(CLI, "bin/jobctl logs $ID", 0, "hello world"),
            Expect.of(CLI, "bin/jobctl list --state SUCCEEDED --all", 0, "hello"),
            Expect.of(CLI, "bin/jobctl cancel $ID", 6, "SUCCEEDED"),
            Expect.of(API, "echo \"$JOB\"", 0, "\"name\":\"train-resnet\"", "\"state\":\"QUEUED\""),
            Expect.of(API, "curl -s localhost:8080/api/v1/jobs/$ID ", 0, "\"name\":\"train-resnet\"", "\"stateReason\":"),
            Expect.of(API, "curl -s \"localhost:8080/api/v1/jobs?state=QUEUED", 0, "train-resnet"),
            Expect.of(API, "curl -s -X POST localhost:8080/api/v1/jobs/$ID/cancel", 0, "\"state\":\"CANCELED\""),
            Expect.of(API, "curl -s localhost:8080/api/v1/jobs/$ID/events", 0, "\"to\":\"QUEUED\"", "\"to\":\"CANCELED\""));

    @Test
    void theReadmesCommandsDoWhatItSaysFromACleanCopy() throws Exception {
        Assumptions.assumeTrue(CleanCopy.isGitWorkTree(REPOSITORY), "not a git work tree: " + REPOSITORY);
        Readme readme = Readme.read(REPOSITORY.resolve("README.md"));
        assertThat(readme.shellCommands("FleetJobs")).as("the README opens with its two commands")
                .anyMatch(c -> c.startsWith("bin/run-local")).anyMatch(c -> c.startsWith("./mvnw verify"));
        List<String> commands = new ArrayList<>();
        List<String> sectionOf = new ArrayList<>();
        for (String section : List.of(TOUR, CLI, API)) {
            List<String> these = readme.shellCommands(section);
            commands.addAll(these);
            these.forEach(c -> sectionOf.add(section));
        }
        List<String> sdk = readme.blocks(CLI, "java");
        assertThat(sdk).as("the Java SDK snippet").hasSize(1);

        Path clone = CleanCopy.workingTree(REPOSITORY, WORK.resolve("clone"));
        Path mavenRepository = CleanCopy.thirdPartyRepository(Path.of(System.getProperty("maven.repo.local")),
                WORK.resolve("m2"));
        int offset = freePortOffset();
        int gateway = 8080 + offset;
        Map<String, String> env = newcomersEnvironment(mavenRepository);
        env.put("JOBS_LOCAL_PORT_OFFSET", Integer.toString(offset));
        env.put("JOBS_LOCAL_HOME", clone.resolve(".local").toString());
        System.out.printf("readme-tests: a clean copy in %s, JDK %s, ports shifted by %d (gateway :%d)%n", clone,
                System.getProperty("java.version"), offset, gateway);

        Instant typed = Instant.now();
        Path runLocalOut = WORK.resolve("run-local.out");
        Process runLocal = start(clone, env, runLocalOut, "bin/run-local");
        RunLocalOutput out = new RunLocalOutput(runLocal, runLocalOut);
        List<String> leftBehind;
        try {
            String upLine = out.await(l -> l.startsWith("FleetJobs is up in"), Duration.ofMinutes(25));
            out.await(l -> l.equals("Ctrl-C stops everything."), Duration.ofMinutes(1));
            String startup = out.all();
            System.out.println("readme-tests: " + upLine + " (" + seconds(typed, Instant.now()) + " s after bin/run-local, build included)");
            for (String piece : List.of("postgres", "kafka", "job-service", "scheduler-service", "reconciler-service", "api-gateway",
                    "agent-1", "agent-2", "api")) {
                assertThat(startup).as("run-local says %s came up", piece).containsPattern("(?m)^  " + piece + " +ready ");
            }
            assertThat(startup).contains("  admin token   ").contains("  URL           http://localhost:" + gateway);

            Shell shell = new Shell(clone, env, WORK.resolve("tour.out"));
            List<Shell.Ran> ran = shell.run(commands.stream().map(c -> c.replace("localhost:8080", "localhost:" + gateway)).toList(),
                    Duration.ofMinutes(20));
            ran.forEach(System.out::println);
            Map<String, List<Shell.Ran>> bySection = new HashMap<>(); // each as the README writes it (port 8080)
            for (int i = 0; i < ran.size(); i++) {
                Shell.Ran r = ran.get(i);
                bySection.computeIfAbsent(sectionOf.get(i), k -> new ArrayList<>())
                        .add(new Shell.Ran(commands.get(i), r.output(), r.exitCode(), r.endedAt()));
            }
            Shell.Ran firstWatch = find(bySection.get(TOUR), "bin/jobctl watch $ID");
            System.out.println("readme-tests: the first job SUCCEEDED " + seconds(typed, firstWatch.endedAt())
                    + " s after bin/run-local was typed (its build of the platform and of jobctl included)");
            check(bySection);

            Shell.Ran snippet = runJavaSnippet(clone, env, sdk.getFirst().replace("localhost:8080", "localhost:" + gateway));
            System.out.println(snippet);
            assertThat(snippet.exitCode()).as("the Java SDK snippet's exit status").isZero();
            assertThat(snippet.output().lines().toList()).as("the SDK snippet prints each state up to the end")
                    .contains("RUNNING").last().isEqualTo("SUCCEEDED");

            List<String> tryLines = out.linesAfter("Try:");
            assertThat(tryLines).as("run-local's suggestions").isNotEmpty();
            List<String> suggested = new Readme.Block("sh", String.join("\n", tryLines) + "\n").commands();
            List<Shell.Ran> tried = new Shell(clone, env, WORK.resolve("try.out")).run(suggested, Duration.ofMinutes(5));
            tried.forEach(System.out::println);
            assertThat(tried).as("every command run-local suggests works").allMatch(r -> r.exitCode() == 0);
            assertThat(tried.getLast().output()).as("its last suggestion watches a job to its end").contains("SUCCEEDED");
        } finally {
            leftBehind = stop(runLocal, out);
        }
        assertThat(leftBehind).as("processes run-local started and left running after SIGTERM").isEmpty();
        assertThat(out.all()).as("what run-local says on SIGTERM").contains("stopping everything").contains("stopped.");
        assertThat(processesUnder(clone)).as("processes left running from the clean copy").isEmpty();
        for (int port : List.of(gateway, 8081 + offset, 8082 + offset, 8083 + offset, 55432 + offset, 59092 + offset)) {
            assertThat(free(port)).as("port %d is free again", port).isTrue();
        }
    }

    /** Every command exits 0 unless the README says otherwise, and prints what the README says it prints. */
    private static void check(Map<String, List<Shell.Ran>> bySection) {
        for (Expect e : EXPECTED) {
            Shell.Ran r = find(bySection.get(e.section()), e.commandStart());
            assertThat(r.exitCode()).as("exit status of %s", r).isEqualTo(e.exitCode());
            int from = 0;
            for (String text : e.inOrder()) {
                int at = r.output().indexOf(text, from);
                if (at < 0) {
                    fail("the README says that `" + r.command() + "` prints '" + text + "'"
                            + (from > 0 ? " after '" + r.output().substring(0, from) + "'" : "") + "; it printed:\n" + r.output());
                }
                from = at + text.length();
            }
        }
        bySection.forEach((section, ran) -> {
            for (Shell.Ran r : ran) {
                boolean expected = EXPECTED.stream().anyMatch(e -> e.section().equals(section) && r.command().startsWith(e.commandStart()));
                if (!expected) {
                    assertThat(r.exitCode()).as("exit status of %s", r).isZero();
                }
            }
        });
        assertThat(find(bySection.get(TOUR), "bin/jobctl list --state QUEUED").output()).containsPattern(UUID);
    }

    private static Shell.Ran find(List<Shell.Ran> ran, String commandStart) {
        List<Shell.Ran> found = ran == null ? List.of() : ran.stream().filter(r -> r.command().startsWith(commandStart)).toList();
        if (found.isEmpty()) {
            fail("the README has no command starting with `" + commandStart + "` in that section any more: change ReadmeTest with it");
        }
        return found.getFirst();
    }

    /** The SDK snippet as the body of a main method, run by the source launcher with jobctl's jar (the SDK inside). */
    private static Shell.Ran runJavaSnippet(Path clone, Map<String, String> env, String snippet) throws IOException {
        Path dir = WORK.resolve("snippet");
        Files.createDirectories(dir);
        Path source = dir.resolve("Snippet.java");
        try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(source))) {
            w.println("import io.fleetjobs.sdk.FleetJobsClient;");
            w.println("import io.fleetjobs.sdk.model.*;");
            w.println("import java.math.BigDecimal;");
            w.println("import java.time.Duration;");
            w.println("import java.util.List;");
            w.println("public class Snippet {");
            w.println("    public static void main(String[] args) throws Exception {");
            snippet.lines().forEach(l -> w.println("        " + l));
            w.println("    }");
            w.println("}");
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String jar = clone.resolve("jobctl/target/jobctl.jar").toString();
        // JOBS_TOKEN as the tour exported it
        return new Shell(clone, env, WORK.resolve("snippet.out"))
                .run(List.of("export JOBS_TOKEN=$(cat .local/admin-token)", java + " -cp " + jar + " " + source),
                        Duration.ofMinutes(5)).getLast();
    }

    /** This machine's environment as a newcomer's shell has it: the JDK found, none of the platform's settings. */
    private static Map<String, String> newcomersEnvironment(Path mavenRepository) {
        Map<String, String> env = new HashMap<>();
        System.getenv().forEach((k, v) -> {
            if (!k.startsWith("JOBS_") && !k.startsWith("MAVEN_") && !k.startsWith("JAVA_")) {
                env.put(k, v);
            }
        });
        env.put("JAVA_HOME", System.getProperty("java.home"));
        env.put("MAVEN_ARGS", "-Dmaven.repo.local=" + mavenRepository);
        return env;
    }

    private static Process start(Path directory, Map<String, String> env, Path output, String command) throws IOException {
        Files.createDirectories(output.getParent());
        ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true)
                .redirectOutput(output.toFile()).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        builder.environment().clear();
        builder.environment().putAll(env);
        return builder.start();
    }

    /** SIGTERM, as Ctrl-C's twin; what is still alive after its grace is killed, and returned (the test fails on it). */
    private static List<String> stop(Process runLocal, RunLocalOutput out) throws InterruptedException {
        List<ProcessHandle> started = runLocal.descendants().toList();
        runLocal.destroy();
        if (!runLocal.waitFor(2, TimeUnit.MINUTES)) {
            System.out.println("readme-tests: run-local did not stop within 2 minutes; killing what it left");
            runLocal.destroyForcibly();
        }
        List<String> left = new ArrayList<>();
        started.stream().filter(ProcessHandle::isAlive).forEach(p -> {
            left.add(p.pid() + ": " + p.info().commandLine().orElse("?"));
            p.destroyForcibly();
        });
        out.drain();
        System.out.println("readme-tests: run-local's output is in " + WORK.resolve("run-local.out"));
        return left;
    }

    /** Processes whose command line names the clean copy: what run-local started and left behind. */
    private static List<String> processesUnder(Path clone) throws IOException {
        List<String> found = new ArrayList<>();
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path p : procs.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
                try {
                    String cmdline = new String(Files.readAllBytes(p.resolve("cmdline")), StandardCharsets.UTF_8).replace('\0', ' ');
                    if (cmdline.contains(clone.toString())) {
                        found.add(p.getFileName() + ": " + cmdline);
                    }
                } catch (IOException e) {
                    // ended meanwhile
                }
            }
        }
        return found;
    }

    /**
     * An offset under which every port run-local uses is free, the services' management ports (9080-9083) too
     * (PostgreSQL's 55432 and Kafka's 59093 bound it).
     */
    private static int freePortOffset() {
        for (int offset = 3000; offset <= 6000; offset += 100) {
            int o = offset;
            if (Stream.of(8080, 8081, 8082, 8083, 9080, 9081, 9082, 9083, 55432, 59092, 59093).allMatch(p -> free(p + o))) {
                return offset;
            }
        }
        throw new IllegalStateException("no free port offset between 3000 and 6000");
    }

    /** Whether nothing listens on the port (connections of a server gone, in TIME_WAIT, do not count: servers reuse). */
    private static boolean free(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress("0.0.0.0", port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static String seconds(Instant from, Instant to) {
        return String.format(Locale.ROOT, "%.1f", Duration.between(from, to).toMillis() / 1000.0);
    }

    /**
     * run-local's output, which goes to a file (a pipe read by this JVM loses what the process prints as it ends:
     * the JDK closes the pipe under a blocked reader once the process exits), read back as it grows.
     */
    private static final class RunLocalOutput {
        private final Process process;
        private final Path file;
        private final List<String> seen = new ArrayList<>();
        private int consumed;

        RunLocalOutput(Process process, Path file) {
            this.process = process;
            this.file = file;
        }

        /** The first line from now on that matches, waiting at most {@code timeout}; fails if run-local ends first. */
        String await(Predicate<String> wanted, Duration timeout) {
            AtomicReference<String> found = new AtomicReference<>();
            try {
                Awaitility.await().atMost(timeout).pollInterval(Duration.ofMillis(250)).until(() -> {
                    boolean alive = process.isAlive();
                    drain();
                    while (consumed < seen.size()) {
                        String line = seen.get(consumed++);
                        if (wanted.test(line)) {
                            found.set(line);
                            return true;
                        }
                    }
                    if (!alive) {
                        fail("bin/run-local ended (exit " + process.exitValue() + ") before it was up; it printed:\n" + all());
                    }
                    return false;
                });
            } catch (ConditionTimeoutException e) {
                fail("bin/run-local was not up within " + timeout + "; it printed:\n" + all());
            }
            return found.get();
        }

        /** Reads the complete lines written since the last read. */
        void drain() {
            try {
                List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
                String text = Files.readString(file, StandardCharsets.UTF_8);
                int complete = text.endsWith("\n") || !process.isAlive() ? lines.size() : lines.size() - 1;
                for (int i = seen.size(); i < complete; i++) {
                    seen.add(lines.get(i));
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        String all() {
            return String.join("\n", seen);
        }

        /** The indented lines after a line equal to {@code header}, up to the first blank one, unindented. */
        List<String> linesAfter(String header) {
            int at = seen.indexOf(header);
            if (at < 0) {
                return List.of();
            }
            return seen.subList(at + 1, seen.size()).stream().takeWhile(l -> !l.isBlank()).map(String::strip).toList();
        }
    }
}
