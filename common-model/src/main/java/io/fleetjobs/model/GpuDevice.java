package io.fleetjobs.model;

import java.util.List;
import java.util.stream.IntStream;

/**
 * One GPU a machine offers, as its agent reports it.
 *
 * @param index    the device's index as {@code nvidia-smi} numbers it (PCI bus order); what jobs are given
 * @param uuid     the driver's stable id ({@code GPU-…}); null where the GPUs were configured by hand
 * @param model    the full name the driver reports; null where configured by hand
 * @param memoryMb the device's memory in MiB; null where unknown
 */
public record GpuDevice(int index, String uuid, String model, Long memoryMb) {
    public GpuDevice {
        if (index < 0) {
            throw new IllegalArgumentException("a GPU index is 0 or more, not " + index);
        }
    }

    /** Devices 0…count-1 of which nothing else is known: a machine whose GPUs were configured by hand. */
    public static List<GpuDevice> numbered(int count) {
        return IntStream.range(0, count).mapToObj(i -> new GpuDevice(i, null, null, null)).toList();
    }
}
