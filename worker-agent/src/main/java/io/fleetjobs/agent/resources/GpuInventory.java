package io.fleetjobs.agent.resources;

import io.fleetjobs.model.GpuDevice;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.IntStream;

/**
 * The GPUs a machine offers to jobs.
 *
 * @param count  how many GPUs of {@code type} the machine offers
 * @param type   the short model name that jobs ask for ({@code "H100"}, {@code "RTX4090"}); null when none
 * @param models every GPU's full name as the driver reports it, in device index order; on a machine with
 *               mixed models it also lists those not counted (see {@link NvidiaSmi#parse})
 * @param offered the {@code count} devices offered, those of {@code type}, in index order
 * @param minors  each device's minor number ({@code /dev/nvidia<minor>}) by its index, where nvidia-smi said it
 */
public record GpuInventory(int count, String type, List<String> models, List<GpuDevice> offered,
        Map<Integer, Integer> minors) {
    public static final GpuInventory NONE = new GpuInventory(0, null, List.of(), List.of());

    public GpuInventory(int count, String type, List<String> models, List<GpuDevice> offered) {
        this(count, type, models, offered, Map.of());
    }

    /** GPUs known by name only: device {@code i} is {@code models[i]}, offered when it is of {@code type}. */
    public GpuInventory(int count, String type, List<String> models) {
        this(count, type, models, IntStream.range(0, models.size())
                .filter(i -> type != null && NvidiaSmi.typeOf(models.get(i)).filter(type::equals).isPresent())
                .mapToObj(i -> new GpuDevice(i, null, models.get(i), null)).toList());
    }

    public GpuInventory {
        if (count < 0) {
            throw new IllegalArgumentException("count must not be negative: " + count);
        }
        if (count > 0 && (type == null || type.isBlank())) {
            throw new IllegalArgumentException("GPUs need a type");
        }
        models = List.copyOf(Objects.requireNonNull(models, "models"));
        if (models.size() < count) {
            throw new IllegalArgumentException("fewer models (" + models.size() + ") than GPUs (" + count + ")");
        }
        offered = List.copyOf(Objects.requireNonNull(offered, "offered"));
        minors = minors == null ? Map.of() : Map.copyOf(minors);
        if (offered.size() != count) {
            throw new IllegalArgumentException(offered.size() + " devices offered for " + count + " GPUs");
        }
    }
}
