package io.fleetjobs.model;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which of a machine's GPUs an attempt gets. The counts already say that the attempt fits; this names the
 * devices, so that two attempts never hold the same one (the database refuses it too: a device has at most one
 * holder). The lowest-numbered free devices are taken: neighbours by index usually share a PCIe switch or an
 * NVLink island, and leaving the high end free keeps the largest runs of free devices for multi-GPU jobs.
 */
public final class GpuAssignment {
    private GpuAssignment() {
    }

    /**
     * @param count   how many devices the attempt asks for
     * @param offered the indices of the devices the machine offers (those of its GPU type)
     * @param held    the indices held by live attempts on the machine
     * @return {@code count} free indices in ascending order
     * @throws IllegalStateException when fewer than {@code count} are free: the counts and the holds disagree
     */
    public static List<Integer> pick(int count, Set<Integer> offered, Set<Integer> held) {
        if (count < 0) {
            throw new IllegalArgumentException("count must not be negative: " + count);
        }
        List<Integer> picked = new ArrayList<>(count);
        for (int index : new TreeSet<>(offered)) {
            if (picked.size() == count) {
                break;
            }
            if (!held.contains(index)) {
                picked.add(index);
            }
        }
        if (picked.size() < count) {
            throw new IllegalStateException("asked for " + count + " GPUs but only " + picked.size() + " of the offered "
                    + new TreeSet<>(offered) + " are free (held: " + new TreeSet<>(held) + ")");
        }
        return List.copyOf(picked);
    }

    /** The value of {@code CUDA_VISIBLE_DEVICES} and {@code NVIDIA_VISIBLE_DEVICES} for these devices. */
    public static String visibleDevices(List<Integer> indices) {
        return indices.isEmpty() ? "" : String.join(",", indices.stream().map(String::valueOf).toList());
    }

    /**
     * What a job holding these devices finds in its environment: CUDA numbers the devices in bus order (as nvidia-smi
     * and the agent do) and sees only these; NVIDIA's container runtime, where a job's command starts one, gets the
     * same list, or {@code void} (no GPU at all) for a job that holds none.
     */
    public static Map<String, String> environment(List<Integer> indices) {
        String visible = visibleDevices(indices);
        Map<String, String> env = new LinkedHashMap<>();
        env.put("CUDA_DEVICE_ORDER", "PCI_BUS_ID");
        env.put("CUDA_VISIBLE_DEVICES", visible);
        env.put("NVIDIA_VISIBLE_DEVICES", indices.isEmpty() ? "void" : visible);
        return env;
    }
}
