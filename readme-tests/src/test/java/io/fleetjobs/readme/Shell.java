package io.fleetjobs.readme;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Commands run one after the other in one bash, as a person types them into one terminal (variables carry from
 * one to the next), each one's output (stdout and stderr together) and exit status told apart by markers the
 * script prints around it, and the time each one ended.
 */
final class Shell {
    private static final String MARK = "@@readme-test@@";
    private static final Pattern MARKER = Pattern.compile("^" + MARK + " (begin|end) (\\d+)(?: (\\d+) (\\d+))?$");

    /** A command as run: what it printed, how it exited, when it ended. */
    record Ran(String command, String output, int exitCode, Instant endedAt) {
        @Override
        public String toString() {
            return "$ " + command + "\n" + output.indent(2) + "  (exit " + exitCode + ")";
        }
    }

    private final Path directory;
    private final Map<String, String> environment;
    private final Path transcript;

    Shell(Path directory, Map<String, String> environment, Path transcript) {
        this.directory = directory;
        this.environment = Map.copyOf(environment);
        this.transcript = transcript;
    }

    /** Runs the commands in one bash; all of them must end within {@code timeout}. */
    List<Ran> run(List<String> commands, Duration timeout) {
        StringBuilder script = new StringBuilder("exec 2>&1 </dev/null\n");
        for (int i = 0; i < commands.size(); i++) {
            script.append("printf '\\n").append(MARK).append(" begin ").append(i).append("\\n'\n");
            script.append(commands.get(i)).append('\n');
            script.append("printf '\\n").append(MARK).append(" end ").append(i).append(" %d %s\\n' $? \"$(date +%s%3N)\"\n");
        }
        try {
            Files.createDirectories(transcript.getParent());
            Path file = transcript.resolveSibling(transcript.getFileName() + ".sh");
            Files.writeString(file, script);
            ProcessBuilder builder = new ProcessBuilder("bash", file.toString()).directory(directory.toFile())
                    .redirectErrorStream(true).redirectOutput(transcript.toFile());
            builder.environment().clear();
            builder.environment().putAll(environment);
            Process bash = builder.start();
            if (!bash.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                bash.descendants().forEach(ProcessHandle::destroyForcibly);
                bash.destroyForcibly();
                throw new AssertionError("the commands did not end within " + timeout + "; so far:\n" + Files.readString(transcript));
            }
            return parse(commands, Files.readString(transcript, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static List<Ran> parse(List<String> commands, String output) {
        List<Ran> ran = new ArrayList<>();
        StringBuilder current = null;
        for (String line : output.lines().toList()) {
            Matcher m = MARKER.matcher(line);
            if (m.matches() && m.group(1).equals("begin")) {
                current = new StringBuilder();
            } else if (m.matches()) {
                int i = Integer.parseInt(m.group(2));
                ran.add(new Ran(commands.get(i), current.toString().strip(), Integer.parseInt(m.group(3)),
                        Instant.ofEpochMilli(Long.parseLong(m.group(4)))));
                current = null;
            } else if (current != null) {
                current.append(line).append('\n');
            }
        }
        if (ran.size() != commands.size()) {
            throw new AssertionError("only " + ran.size() + " of " + commands.size() + " commands ended (did one exit the "
                    + "shell?); output:\n" + output);
        }
        return ran;
    }
}
