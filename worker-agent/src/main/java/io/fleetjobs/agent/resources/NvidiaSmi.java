package io.fleetjobs.agent.resources;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.fleetjobs.model.GpuDevice;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.regex.Pattern;

/** Detects a machine's NVIDIA GPUs with {@code nvidia-smi}. */
public final class NvidiaSmi {
    /**
     * One line per GPU in index order: {@code 0, GPU-5b1c…, NVIDIA H100 80GB HBM3, 81559, 00000000:3B:00.0} (memory in
     * MiB; the last field is the PCI bus id, under which the driver tells the device node's minor number,
     * {@code /dev/nvidia<minor>}, which need not be the index: {@link #minorFromProc}). nvidia-smi has no query field
     * for the minor number itself: asked for {@code minor_number}, a real H200's driver (580) refused the whole query
     * (exit 2, "Field "minor_number" is not a valid field to query"), and the agent found no GPU.
     */
    public static final List<String> QUERY = List.of("nvidia-smi", "--query-gpu=index,uuid,name,memory.total,pci.bus_id",
            "--format=csv,noheader,nounits");
    /** Where the NVIDIA driver describes each GPU, in a folder named by its PCI bus id ({@code 0000:3b:00.0}). */
    static final Path PROC_GPUS = Path.of("/proc/driver/nvidia/gpus");

    /** What nvidia-smi prints (and exits 6 with) when the driver works and there is no GPU. */
    static final String NO_DEVICES = "No devices were found";

    private static final String BY_HAND =
            "Fix the driver, or set jobs.worker.gpu-count and jobs.worker.gpu-type by hand to run without detection";
    /** Words before the model that name a vendor or a product line rather than the model. */
    private static final Set<String> BRANDS = Set.of("NVIDIA", "TESLA", "GEFORCE", "QUADRO", "GRID");
    /** Families whose models are named in more than one word ("RTX 4090", "RTX A6000", "TITAN V"). */
    private static final Set<String> FAMILIES = Set.of("RTX", "GTX", "TITAN");
    /** Words after a family model's number that make it another card ("RTX 4070 Ti SUPER", "RTX 6000 Ada"). */
    private static final Set<String> VARIANTS = Set.of("TI", "SUPER", "ADA");
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9 ._()/+-]{1,96}");
    private static final Pattern TYPE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");
    private static final Pattern INDEX = Pattern.compile("[0-9]{1,4}");
    private static final Pattern MEMORY = Pattern.compile("[0-9]{1,9}");
    private static final Pattern UUID = Pattern.compile("[A-Za-z0-9-]{1,96}");
    private static final Pattern BUS_ID = Pattern.compile("[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\\.[0-7]");
    private static final int MAX_WORDS = 10;
    private static final int MAX_OUTPUT = 1 << 20;
    private static final int QUOTE_LIMIT = 1000;

    private NvidiaSmi() {
    }

    /**
     * Parses the output of {@link #QUERY}: one GPU name per line, in device index order. Each name gives a
     * short type: vendor and line words dropped ({@code NVIDIA}, {@code Tesla}, {@code GeForce},
     * {@code Quadro}), then the model's first word up to its first dash ({@code "NVIDIA A100-SXM4-40GB"} is
     * {@code A100}, {@code "NVIDIA H100 80GB HBM3"} is {@code H100}), or, for the RTX, GTX and TITAN
     * families, the family joined with its number and variant words, upper case ({@code "NVIDIA GeForce RTX
     * 4090"} is {@code RTX4090}, {@code "NVIDIA RTX A6000"} is {@code RTXA6000}, {@code "NVIDIA RTX 6000 Ada
     * Generation"} is {@code RTX6000ADA}).
     *
     * <p>A machine offers one GPU type to the scheduler. When models are mixed, the most common type wins,
     * and on a tie the type of the lowest-numbered device; {@code count} counts only GPUs of that type,
     * while {@code models} lists every GPU, so the others are visible and their indices known.
     *
     * @return {@link GpuInventory#NONE} for blank output or "No devices were found"
     * @throws IllegalArgumentException when a line is not a GPU name (an error message, say); the message
     *                                  quotes the output
     */
    public static GpuInventory parse(String output) {
        return parse(output, NvidiaSmi::minorFromProc);
    }

    /**
     * Like {@link #parse(String)}, with the minor number of the device at a PCI bus id from {@code minorOfBus} (empty:
     * not known, and the index stands for it).
     */
    static GpuInventory parse(String output, Function<String, Optional<Integer>> minorOfBus) {
        Objects.requireNonNull(output, "output");
        List<String> lines = output.lines().map(String::strip).filter(line -> !line.isEmpty()).toList();
        if (lines.isEmpty() || lines.equals(List.of(NO_DEVICES))) {
            return GpuInventory.NONE;
        }
        List<GpuDevice> devices = new ArrayList<>(lines.size());
        Map<Integer, Integer> minors = new LinkedHashMap<>();
        Map<String, Integer> counts = new LinkedHashMap<>();
        List<String> types = new ArrayList<>(lines.size());
        for (int i = 0; i < lines.size(); i++) {
            int line = i + 1;
            GpuDevice device = device(lines.get(i), i).orElseThrow(() -> new IllegalArgumentException("nvidia-smi output line "
                    + line + " is not a GPU: \"" + lines.get(line - 1) + "\"; the output was: \"" + quote(output) + "\""));
            minor(lines.get(i), minorOfBus).ifPresent(minor -> minors.put(device.index(), minor));
            String type = typeOf(device.model()).orElseThrow(() -> new IllegalArgumentException("nvidia-smi output line "
                    + line + " is not a GPU name: \"" + device.model() + "\"; the output was: \"" + quote(output) + "\""));
            devices.add(device);
            types.add(type);
            counts.merge(type, 1, Integer::sum);
        }
        Map.Entry<String, Integer> chosen = null;
        for (Map.Entry<String, Integer> entry : counts.entrySet()) {
            if (chosen == null || entry.getValue() > chosen.getValue()) {
                chosen = entry;
            }
        }
        List<GpuDevice> offered = new ArrayList<>();
        for (int i = 0; i < devices.size(); i++) {
            if (types.get(i).equals(chosen.getKey())) {
                offered.add(devices.get(i));
            }
        }
        return new GpuInventory(chosen.getValue(), chosen.getKey(), devices.stream().map(GpuDevice::model).toList(), offered,
                minors);
    }

    /**
     * One line of the output: {@code index, uuid, name, memory.total, pci.bus_id} as {@link #QUERY} asks, the same
     * with a minor number in the last place (captured samples), without it, or a name alone (at {@code position}), as
     * older scripts and captured samples print it.
     */
    private static Optional<GpuDevice> device(String line, int position) {
        if (!line.contains(",")) {
            return Optional.of(new GpuDevice(position, null, line, null));
        }
        String[] fields = line.split(",", -1);
        if ((fields.length != 4 && fields.length != 5) || !INDEX.matcher(fields[0].strip()).matches() || !UUID.matcher(fields[1].strip()).matches()) {
            return Optional.empty();
        }
        String memory = fields[3].strip();
        return Optional.of(new GpuDevice(Integer.parseInt(fields[0].strip()), fields[1].strip(), fields[2].strip(),
                MEMORY.matcher(memory).matches() ? Long.valueOf(memory) : null));
    }

    /**
     * The minor number of a five-field line: its device's, found by its PCI bus id, or the number itself where a
     * sample gives one; none for {@code [N/A]} or a bus id the driver does not describe.
     */
    private static Optional<Integer> minor(String line, Function<String, Optional<Integer>> minorOfBus) {
        String[] fields = line.split(",", -1);
        if (fields.length != 5) {
            return Optional.empty();
        }
        String last = fields[4].strip();
        if (INDEX.matcher(last).matches()) {
            return Optional.of(Integer.parseInt(last));
        }
        return BUS_ID.matcher(last).matches() ? minorOfBus.apply(last) : Optional.empty();
    }

    /** The minor number the driver gives the GPU at {@code busId} as nvidia-smi prints it ({@code 00000000:3B:00.0}). */
    public static Optional<Integer> minorFromProc(String busId) {
        return minorFrom(PROC_GPUS, busId);
    }

    /**
     * Reads {@code Device Minor:} from {@code <gpus>/<bus id>/information}, the bus id as the driver names its folder:
     * a four-digit domain, lower case ({@code 0000:3b:00.0}). Empty where there is no such file (a container that
     * does not show the driver's folder) or no such line.
     */
    static Optional<Integer> minorFrom(Path gpus, String busId) {
        int colon = busId.indexOf(':');
        if (colon < 4 || !BUS_ID.matcher(busId).matches()) {
            return Optional.empty();
        }
        String folder = (busId.substring(colon - 4, colon) + busId.substring(colon)).toLowerCase(Locale.ROOT);
        try {
            for (String line : Files.readAllLines(gpus.resolve(folder).resolve("information"), UTF_8)) {
                if (line.startsWith("Device Minor:")) {
                    String value = line.substring("Device Minor:".length()).strip();
                    return INDEX.matcher(value).matches() ? Optional.of(Integer.parseInt(value)) : Optional.empty();
                }
            }
        } catch (IOException | InvalidPathException e) {
            return Optional.empty();
        }
        return Optional.empty();
    }

    /**
     * Runs {@link #QUERY}, waiting at most {@code timeout}.
     *
     * @return empty when there is no nvidia-smi on the PATH (a machine without NVIDIA GPUs); {@link
     *         GpuInventory#NONE} when it finds no device
     * @throws IllegalStateException when nvidia-smi fails (no driver, a version mismatch), hangs, or prints
     *                               what is not a list of GPUs; the message quotes its output and says to set
     *                               {@code jobs.worker.gpu-count} and {@code jobs.worker.gpu-type} by hand
     */
    public static Optional<GpuInventory> detect(Duration timeout) {
        return detect(QUERY, timeout);
    }

    static Optional<GpuInventory> detect(List<String> command, Duration timeout) {
        String program = command.getFirst();
        if (findExecutable(program).isEmpty()) {
            return Optional.empty();
        }
        Process process;
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + program + ": " + e.getMessage() + ". " + BY_HAND + ".", e);
        }
        try {
            process.getOutputStream().close();
        } catch (IOException ignored) {
            // it reads nothing
        }
        CompletableFuture<String> output = new CompletableFuture<>();
        Thread.ofVirtual().name("nvidia-smi-output").start(() -> {
            try (InputStream in = process.getInputStream()) {
                String text = new String(in.readNBytes(MAX_OUTPUT), UTF_8);
                in.transferTo(OutputStream.nullOutputStream());
                output.complete(text);
            } catch (IOException e) {
                output.completeExceptionally(e);
            }
        });
        long deadline = System.nanoTime() + timeout.toNanos();
        String text;
        try {
            if (!process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                throw new TimeoutException();
            }
            text = output.get(Math.max(deadline - System.nanoTime(), TimeUnit.SECONDS.toNanos(1)), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            process.destroyForcibly();
            throw new IllegalStateException(program + " did not answer within " + timeout + " (is the GPU driver hung?). "
                    + BY_HAND + ".");
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot read the output of " + program + ": " + e.getCause() + ". " + BY_HAND
                    + ".", e.getCause());
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + program, e);
        }
        int exit = process.exitValue();
        if (text.strip().equals(NO_DEVICES)) {
            return Optional.of(GpuInventory.NONE);
        }
        if (exit != 0) {
            throw new IllegalStateException(program + " failed (exit " + exit + "): \"" + quote(text) + "\". " + BY_HAND
                    + ".");
        }
        try {
            return Optional.of(parse(text));
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(e.getMessage() + ". " + BY_HAND + ".", e);
        }
    }

    /** The short type of one GPU name, or empty when the name does not look like one. */
    static Optional<String> typeOf(String name) {
        if (!NAME.matcher(name).matches()) {
            return Optional.empty();
        }
        String[] words = name.strip().split("\\s+");
        if (words.length > MAX_WORDS) {
            return Optional.empty();
        }
        int i = 0;
        while (i < words.length && BRANDS.contains(words[i].toUpperCase(Locale.ROOT))) {
            i++;
        }
        if (i == words.length) {
            return Optional.empty();
        }
        String type;
        if (FAMILIES.contains(words[i].toUpperCase(Locale.ROOT))) {
            StringBuilder joined = new StringBuilder(words[i++]);
            while (i < words.length && !hasDigit(joined)) {
                joined.append(words[i++]);
            }
            for (; i < words.length; i++) {
                if (VARIANTS.contains(words[i].toUpperCase(Locale.ROOT))) {
                    joined.append(words[i]);
                }
            }
            type = joined.toString().toUpperCase(Locale.ROOT);
        } else {
            String model = words[i];
            int dash = model.indexOf('-');
            type = dash < 0 ? model : model.substring(0, dash);
            if (!hasDigit(type)) {
                return Optional.empty();
            }
        }
        return TYPE.matcher(type).matches() ? Optional.of(type) : Optional.empty();
    }

    private static boolean hasDigit(CharSequence text) {
        return text.chars().anyMatch(Character::isDigit);
    }

    private static String quote(String output) {
        String text = output.strip();
        return text.length() <= QUOTE_LIMIT ? text : text.substring(0, QUOTE_LIMIT) + "...";
    }

    /** Where the program would be found: a path when it has a slash, else on this process's PATH. */
    private static Optional<Path> findExecutable(String program) {
        try {
            if (program.contains("/")) {
                return Optional.of(Path.of(program)).filter(NvidiaSmi::isExecutableFile);
            }
            String searchPath = Objects.requireNonNullElse(System.getenv("PATH"), "/bin:/usr/bin");
            for (String dir : searchPath.split(":", -1)) {
                Path candidate = Path.of(dir.isEmpty() ? "." : dir).resolve(program);
                if (isExecutableFile(candidate)) {
                    return Optional.of(candidate);
                }
            }
            return Optional.empty();
        } catch (InvalidPathException e) {
            return Optional.empty();
        }
    }

    private static boolean isExecutableFile(Path path) {
        return Files.isRegularFile(path) && Files.isExecutable(path);
    }
}
