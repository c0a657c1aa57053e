package io.fleetjobs.agent.simulate;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Reads the fleet simulator's machines file:
 *
 * <pre>
 *   id,region,cpu,memoryMb,gpuCount,gpuType,labels
 *   sim-001,us-east-1,64,262144,0,,pool=batch;disk=ssd
 *   sim-002,eu-west-1,32,131072,8,H100,
 * </pre>
 *
 * <p>{@code cpu} in cores (at most 3 decimals), {@code memoryMb} positive, {@code gpuCount} 0 or more,
 * {@code gpuType} empty when there is no GPU, {@code labels} empty or {@code k=v;k=v}. Fields are trimmed;
 * blank lines are skipped; there is no quoting (no field needs a comma). Anything else fails with the line
 * and field at fault, before a single machine joins.
 */
public final class MachinesCsv {
    public static final String HEADER = "id,region,cpu,memoryMb,gpuCount,gpuType,labels";
    private static final String[] FIELDS = HEADER.split(",");
    /** What the scheduler accepts as a machine id. */
    private static final Pattern MACHINE_ID = Pattern.compile("[A-Za-z0-9._:-]{1,128}");

    private MachinesCsv() {
    }

    public static List<SimulatedMachine> read(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the simulated machines file " + file.toAbsolutePath(), e);
        }
        return parse(file.toString(), lines);
    }

    /** @param source names the file in error messages */
    public static List<SimulatedMachine> parse(String source, List<String> lines) {
        if (lines.isEmpty() || !lines.getFirst().strip().replace("\uFEFF", "").equals(HEADER)) {
            throw new BadMachinesFileException(source, 1, null, "the header must be exactly '" + HEADER + "'");
        }
        List<SimulatedMachine> machines = new ArrayList<>();
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 1; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.isBlank()) {
                continue;
            }
            int number = i + 1;
            SimulatedMachine machine = machine(source, number, line);
            Integer earlier = seen.putIfAbsent(machine.id(), number);
            if (earlier != null) {
                throw new BadMachinesFileException(source, number, "id",
                        "machine '" + machine.id() + "' is already on line " + earlier);
            }
            machines.add(machine);
        }
        if (machines.isEmpty()) {
            throw new BadMachinesFileException(source, lines.size(), null, "no machines after the header");
        }
        return List.copyOf(machines);
    }

    private static SimulatedMachine machine(String source, int line, String text) {
        String[] f = text.split(",", -1);
        if (f.length != FIELDS.length) {
            throw new BadMachinesFileException(source, line, null,
                    f.length + " fields where " + FIELDS.length + " are expected (" + HEADER + ")");
        }
        for (int i = 0; i < f.length; i++) {
            f[i] = f[i].strip();
        }
        String id = f[0];
        if (!MACHINE_ID.matcher(id).matches()) {
            throw new BadMachinesFileException(source, line, "id", "must be 1-128 of [A-Za-z0-9._:-], not '" + id + "'");
        }
        String region = f[1];
        if (region.isEmpty()) {
            throw new BadMachinesFileException(source, line, "region", "must not be empty");
        }
        long cpuMillis = cpuMillis(source, line, f[2]);
        long memoryMb = positive(source, line, "memoryMb", f[3]);
        int gpuCount;
        try {
            gpuCount = Integer.parseInt(f[4]);
        } catch (NumberFormatException e) {
            gpuCount = -1;
        }
        if (gpuCount < 0) {
            throw new BadMachinesFileException(source, line, "gpuCount", "must be a whole number >= 0, not '" + f[4] + "'");
        }
        String gpuType = f[5].isEmpty() ? null : f[5];
        if (gpuType != null && gpuCount == 0) {
            throw new BadMachinesFileException(source, line, "gpuType", "names '" + gpuType + "' but gpuCount is 0");
        }
        return new SimulatedMachine(id, region, cpuMillis, memoryMb, gpuCount, gpuType, labels(source, line, f[6]));
    }

    private static long cpuMillis(String source, int line, String value) {
        try {
            BigDecimal cores = new BigDecimal(value);
            if (cores.signum() > 0 && cores.stripTrailingZeros().scale() <= 3) {
                return cores.movePointRight(3).longValueExact();
            }
        } catch (ArithmeticException | NumberFormatException e) {
            // reported below
        }
        throw new BadMachinesFileException(source, line, "cpu",
                "must be a positive number of cores with at most 3 decimals, not '" + value + "'");
    }

    private static long positive(String source, int line, String field, String value) {
        try {
            long n = Long.parseLong(value);
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new BadMachinesFileException(source, line, field, "must be a whole number > 0, not '" + value + "'");
    }

    private static Map<String, String> labels(String source, int line, String value) {
        Map<String, String> labels = new LinkedHashMap<>();
        if (value.isEmpty()) {
            return labels;
        }
        for (String pair : value.split(";", -1)) {
            int eq = pair.indexOf('=');
            String key = eq < 0 ? "" : pair.substring(0, eq).strip();
            if (key.isEmpty()) {
                throw new BadMachinesFileException(source, line, "labels",
                        "'" + pair + "' is not key=value (labels are k=v;k=v)");
            }
            if (labels.put(key, pair.substring(eq + 1).strip()) != null) {
                throw new BadMachinesFileException(source, line, "labels", "label '" + key + "' is given twice");
            }
        }
        return labels;
    }
}
