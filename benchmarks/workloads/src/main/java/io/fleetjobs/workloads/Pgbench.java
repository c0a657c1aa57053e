package io.fleetjobs.workloads;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * pgbench against a database of {@link BenchPostgres}: finds the executable ({@code PGBENCH}, else
 * {@code pgbench} on the {@code PATH}), runs it and reads the transactions per second from its report.
 * The scripts live in the repository's {@code benchmarks/} folder, next to this module.
 */
final class Pgbench {
    /** pgbench's summary line: {@code tps = 1234.567890 (without initial connection time)}. */
    private static final Pattern TPS = Pattern.compile("^tps = ([0-9]+(?:\\.[0-9]+)?)", Pattern.MULTILINE);

    private final Path executable;
    private final BenchPostgres pg;

    private Pgbench(Path executable, BenchPostgres pg) {
        this.executable = executable;
        this.pg = pg;
    }

    /** pgbench for this server, or empty when it is not installed (the caller says so instead of failing). */
    static Optional<Pgbench> find(BenchPostgres pg) {
        return executable().map(p -> new Pgbench(p, pg));
    }

    static Optional<Path> executable() {
        String configured = System.getenv("PGBENCH");
        if (configured != null && !configured.isBlank()) {
            Path p = Path.of(configured);
            return Files.isExecutable(p) ? Optional.of(p) : Optional.empty();
        }
        String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
        for (String dir : path.split(java.io.File.pathSeparator)) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, "pgbench");
            if (Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /** Why nothing was measured, for the table. */
    static String missing() {
        return "pgbench: not found (install PostgreSQL's client tools or set PGBENCH): not measured";
    }

    /** The repository's benchmarks/ folder, from the repository root or from this module's folder. */
    static Path scripts() {
        Path here = Path.of("benchmarks");
        return Files.isDirectory(here) ? here : Path.of("..");
    }

    /** Builds pgbench's own tables at the given scale ({@code pgbench -i}). */
    void initialize(String database, int scale) throws IOException, InterruptedException {
        String out = run(database, List.of("-i", "-q", "-s", Integer.toString(scale)));
        if (!out.contains("done")) {
            throw new IllegalStateException("pgbench -i failed: " + out);
        }
    }

    /**
     * Runs a workload for {@code seconds} with {@code clients} connections over {@code threads} threads;
     * {@code workload} is {@code -b <builtin>} or {@code -f <script>}. Returns transactions per second.
     */
    double tps(String database, List<String> workload, int clients, int threads, int seconds)
            throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(List.of("-n", "-c", Integer.toString(clients), "-j",
                Integer.toString(Math.min(threads, clients)), "-T", Integer.toString(seconds)));
        args.addAll(workload);
        String out = run(database, args);
        return parseTps(out).orElseThrow(() -> new IllegalStateException("pgbench reported no tps: " + out));
    }

    private String run(String database, List<String> args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(executable.toString(), "-h", pg.host(), "-p",
                Integer.toString(pg.port()), "-U", pg.user()));
        command.addAll(args);
        command.add(database);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("PGPASSWORD", pg.password());
        Process p = builder.start();
        String out = new String(p.getInputStream().readAllBytes());
        int exit = p.waitFor();
        if (exit != 0) {
            throw new IllegalStateException("pgbench exited with " + exit + ": " + out);
        }
        return out;
    }

    static OptionalDouble parseTps(String output) {
        Matcher m = TPS.matcher(output);
        return m.find() ? OptionalDouble.of(Double.parseDouble(m.group(1))) : OptionalDouble.empty();
    }
}
