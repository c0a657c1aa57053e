package io.fleetjobs.agent.resources;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetjobs.model.GpuDevice;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class NvidiaSmiTest {
    static final Duration TIMEOUT = Duration.ofSeconds(10);

    @TempDir
    Path dir;

    static String sample(String name) {
        try (InputStream in = NvidiaSmiTest.class.getResourceAsStream("/nvidia-smi/" + name)) {
            if (in == null) {
                throw new IllegalArgumentException("no sample " + name);
            }
            return new String(in.readAllBytes(), UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @ParameterizedTest(name = "{0}: {1} x {2}")
    @CsvSource(nullValues = "none", value = {
            "h100-80gb-hbm3-x8.txt,      8, H100,    8",
            "a100-sxm4-40gb-x4.txt,      4, A100,    4",
            "h200-x1.txt,                1, H200,    1",
            "tesla-v100-x2.txt,          2, V100,    2",
            "rtx4090-x1.txt,             1, RTX4090, 1",
            "mixed-rtxa6000-rtx4090.txt, 2, RTX4090, 3",
            "tie-l4-a10g.txt,            1, L4,      2",
            "empty.txt,                  0, none,    0",
            "no-devices.txt,             0, none,    0",
    })
    void parsesCapturedSamples(String file, int count, String type, int models) {
        GpuInventory inventory = NvidiaSmi.parse(sample(file));

        assertThat(inventory.count()).isEqualTo(count);
        assertThat(inventory.type()).isEqualTo(type);
        assertThat(inventory.models()).hasSize(models);
    }

    @Test
    void modelsListEveryGpuInIndexOrderSoThatAMixedBoxShowsWhatIsNotCounted() {
        GpuInventory mixed = NvidiaSmi.parse(sample("mixed-rtxa6000-rtx4090.txt"));

        assertThat(mixed.models()).containsExactly("NVIDIA RTX A6000", "NVIDIA GeForce RTX 4090", "NVIDIA GeForce RTX 4090");
        assertThat(NvidiaSmi.parse(sample("h100-80gb-hbm3-x8.txt")).models()).containsOnly("NVIDIA H100 80GB HBM3");
    }

    @Test
    void onATieTheLowestNumberedDeviceDecides() {
        assertThat(NvidiaSmi.parse("NVIDIA L4\nNVIDIA A10G\n").type()).isEqualTo("L4");
        assertThat(NvidiaSmi.parse("NVIDIA A10G\nNVIDIA L4\n").type()).isEqualTo("A10G");
        assertThat(NvidiaSmi.parse("NVIDIA A10G\nNVIDIA L4\nNVIDIA L4\n")).isEqualTo(
                new GpuInventory(2, "L4", List.of("NVIDIA A10G", "NVIDIA L4", "NVIDIA L4")));
    }

    @Test
    void theChoiceDoesNotDependOnHowMixedModelsAreInterleaved() {
        List<String> names = new ArrayList<>(List.of("NVIDIA H100 80GB HBM3", "NVIDIA H100 PCIe", "NVIDIA H100 NVL",
                "NVIDIA A100-SXM4-80GB", "NVIDIA A100 80GB PCIe", "Tesla T4"));
        for (long seed = 0; seed < 50; seed++) {
            Collections.shuffle(names, new Random(seed));
            GpuInventory inventory = NvidiaSmi.parse(String.join("\n", names));
            assertThat(inventory.type()).as("seed %d: %s", seed, names).isEqualTo("H100");
            assertThat(inventory.count()).as("seed %d", seed).isEqualTo(3);
            assertThat(inventory.models()).as("seed %d", seed).containsExactlyElementsOf(names);
        }
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
            "NVIDIA H100 80GB HBM3,                        H100",
            "NVIDIA H100 PCIe,                             H100",
            "NVIDIA H100 NVL,                              H100",
            "NVIDIA A100-SXM4-40GB,                        A100",
            "NVIDIA A100 80GB PCIe,                        A100",
            "A100-SXM4-40GB,                               A100",
            "NVIDIA H200,                                  H200",
            "NVIDIA GH200 480GB,                           GH200",
            "NVIDIA B200,                                  B200",
            "Tesla V100-SXM2-16GB,                         V100",
            "Tesla V100S-PCIE-32GB,                        V100S",
            "Tesla T4,                                     T4",
            "Tesla K80,                                    K80",
            "NVIDIA L4,                                    L4",
            "NVIDIA L40S,                                  L40S",
            "NVIDIA A10G,                                  A10G",
            "NVIDIA A10,                                   A10",
            "NVIDIA GeForce RTX 4090,                      RTX4090",
            "NVIDIA GeForce RTX 3080 Ti,                   RTX3080TI",
            "NVIDIA GeForce RTX 4070 Ti SUPER,             RTX4070TISUPER",
            "GeForce GTX 1080 Ti,                          GTX1080TI",
            "NVIDIA RTX A6000,                             RTXA6000",
            "NVIDIA RTX 6000 Ada Generation,               RTX6000ADA",
            "NVIDIA RTX PRO 6000 Blackwell Server Edition, RTXPRO6000",
            "Quadro RTX 8000,                              RTX8000",
            "Quadro P4000,                                 P4000",
            "NVIDIA TITAN RTX,                             TITANRTX",
            "TITAN V,                                      TITANV",
            "GRID A100D-40C,                               A100D",
            "  NVIDIA H100 80GB HBM3  ,                    H100",
    })
    void aGpuNameGivesAShortType(String name, String type) {
        assertThat(NvidiaSmi.typeOf(name)).contains(type);
        assertThat(NvidiaSmi.parse(name + "\n")).isEqualTo(new GpuInventory(1, type, List.of(name.strip())));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
            "driver-error.txt,           NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver",
            "nvml-version-mismatch.txt,  Failed to initialize NVML: Driver/library version mismatch",
            "gpu-fallen-off-the-bus.txt, Unable to determine the device handle for GPU0000:3B:00.0: Unknown Error",
    })
    void garbageIsRefusedWithWhatWasSeen(String file, String seen) {
        assertThatThrownBy(() -> NvidiaSmi.parse(sample(file)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is not a GPU name")
                .hasMessageContaining(seen);
    }

    @Test
    void theLineThatIsNotAGpuIsNamed() {
        assertThatThrownBy(() -> NvidiaSmi.parse(sample("gpu-fallen-off-the-bus.txt")))
                .hasMessageStartingWith("nvidia-smi output line 2 is not a GPU name");
        assertThatThrownBy(() -> NvidiaSmi.parse("GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-5b1c...)"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> NvidiaSmi.parse("NVIDIA Graphics Device"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void blankOutputIsNone() {
        assertThat(NvidiaSmi.parse("")).isSameAs(GpuInventory.NONE);
        assertThat(NvidiaSmi.parse("\n  \n")).isSameAs(GpuInventory.NONE);
        assertThat(GpuInventory.NONE).isEqualTo(new GpuInventory(0, null, List.of()));
    }

    /** A fake nvidia-smi: checks that it is asked the query, prints a sample, exits as told. */
    Path fake(String sample, int exit) throws IOException {
        Path printed = Files.writeString(dir.resolve("sample-" + sample), sample(sample));
        Path script = dir.resolve("nvidia-smi-" + sample.replace(".txt", "") + "-" + exit);
        Files.writeString(script, "#!/bin/sh\n"
                + "[ \"$*\" = '--query-gpu=index,uuid,name,memory.total,pci.bus_id --format=csv,noheader,nounits' ] || { echo \"asked: $*\"; exit 2; }\n"
                + "cat '" + printed + "'\n"
                + "exit " + exit + "\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        return script;
    }

    static List<String> query(Path executable) {
        List<String> command = new ArrayList<>(NvidiaSmi.QUERY);
        command.set(0, executable.toString());
        return command;
    }

    @Test
    void detectReadsWhatNvidiaSmiPrints() throws IOException {
        assertThat(NvidiaSmi.detect(query(fake("h100-80gb-hbm3-x8.txt", 0)), TIMEOUT))
                .contains(new GpuInventory(8, "H100", Collections.nCopies(8, "NVIDIA H100 80GB HBM3")));
        assertThat(NvidiaSmi.detect(query(fake("tesla-v100-x2.txt", 0)), TIMEOUT).map(GpuInventory::type)).contains("V100");
    }

    @Test
    void detectWithoutNvidiaSmiIsEmpty() {
        assertThat(NvidiaSmi.detect(query(dir.resolve("nvidia-smi")), TIMEOUT)).isEmpty();
        assertThat(NvidiaSmi.detect(List.of("nvidia-smi-that-no-machine-has"), TIMEOUT)).isEmpty();
    }

    @Test
    void detectWithADriverThatFailsSaysWhatItSaidAndWhatToSet() throws IOException {
        assertThatThrownBy(() -> NvidiaSmi.detect(query(fake("driver-error.txt", 9)), TIMEOUT))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("exit 9")
                .hasMessageContaining("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
                        + "Make sure that the latest NVIDIA driver is installed and running.")
                .hasMessageContaining("jobs.worker.gpu-count")
                .hasMessageContaining("jobs.worker.gpu-type");
    }

    @Test
    void detectWithNoDeviceIsNone() throws IOException {
        assertThat(NvidiaSmi.detect(query(fake("no-devices.txt", 6)), TIMEOUT)).contains(GpuInventory.NONE);
    }

    @Test
    void detectOfGarbageOnSuccessIsRefusedWithTheSameAdvice() throws IOException {
        assertThatThrownBy(() -> NvidiaSmi.detect(query(fake("gpu-fallen-off-the-bus.txt", 0)), TIMEOUT))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Unable to determine the device handle")
                .hasMessageContaining("jobs.worker.gpu-count");
    }

    @Test
    void detectGivesUpOnANvidiaSmiThatHangs() throws IOException {
        Path script = Files.writeString(dir.resolve("nvidia-smi-hung"), "#!/bin/sh\nexec sleep 60\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));

        long began = System.nanoTime();
        assertThatThrownBy(() -> NvidiaSmi.detect(query(script), Duration.ofMillis(300)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("did not answer within PT0.3S")
                .hasMessageContaining("jobs.worker.gpu-count");
        assertThat(Duration.ofNanos(System.nanoTime() - began)).isLessThan(Duration.ofSeconds(10));
    }

    @Test
    void theQueryAsksForEachDevicesIndexUuidNameMemoryAndBusId() {
        // fields nvidia-smi knows: a real H200's driver (580) refused "minor_number" and with it the whole query
        assertThat(NvidiaSmi.QUERY).containsExactly("nvidia-smi", "--query-gpu=index,uuid,name,memory.total,pci.bus_id",
                "--format=csv,noheader,nounits");
        assertThat(Optional.of(NvidiaSmi.parse(sample("h200-x1.txt")))).contains(new GpuInventory(1, "H200", List.of("NVIDIA H200")));
    }

    @Test
    void eachDeviceIsReportedWithItsIndexUuidAndMemory() {
        GpuInventory inventory = NvidiaSmi.parse(sample("h100-x8-devices.txt"));
        assertThat(inventory.count()).isEqualTo(8);
        assertThat(inventory.type()).isEqualTo("H100");
        assertThat(inventory.offered()).extracting(GpuDevice::index).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
        assertThat(inventory.offered().get(3)).isEqualTo(
                new GpuDevice(3, "GPU-00000003-1c2d-4e5f-8a9b-0c1d2e3f4a53", "NVIDIA H100 80GB HBM3", 81559L));
    }

    @Test
    void aMixedMachineOffersOnlyTheDevicesOfItsTypeUnderTheirOwnIndices() {
        GpuInventory inventory = NvidiaSmi.parse(sample("mixed-devices.txt"));
        assertThat(inventory.type()).isEqualTo("RTXA6000");
        assertThat(inventory.offered()).extracting(GpuDevice::index).containsExactly(0, 2, 3);
        assertThat(inventory.offered().get(2).memoryMb()).as("[N/A] is unknown, not an error").isNull();
        assertThat(inventory.models()).hasSize(4);
    }

    @Test
    void theMinorNumberNamesEachDevicesNodeAndLinesWithoutItStillRead() {
        GpuInventory gpus = NvidiaSmi.parse("0, GPU-aaa, NVIDIA H100 80GB HBM3, 81559, 2\n"
                + "1, GPU-bbb, NVIDIA H100 80GB HBM3, 81559, 0\n2, GPU-ccc, NVIDIA H100 80GB HBM3, 81559, 1\n");
        assertThat(gpus.count()).isEqualTo(3);
        assertThat(gpus.offered().getFirst()).isEqualTo(new GpuDevice(0, "GPU-aaa", "NVIDIA H100 80GB HBM3", 81559L));
        assertThat(gpus.minors()).isEqualTo(Map.of(0, 2, 1, 0, 2, 1));
        // the four fields of before, names alone, and a minor nvidia-smi cannot tell: no minors, the index stands
        assertThat(NvidiaSmi.parse("0, GPU-aaa, NVIDIA H100 80GB HBM3, 81559\n").minors()).isEmpty();
        assertThat(NvidiaSmi.parse("NVIDIA L4\nNVIDIA L4\n").minors()).isEmpty();
        assertThat(NvidiaSmi.parse("0, GPU-aaa, NVIDIA H100 80GB HBM3, 81559, [N/A]\n").minors()).isEmpty();
    }

    /** What that H200 printed for the query (2026-12-04, driver 580), its minor number read where the driver keeps it. */
    @Test
    void aRealH200sLineReadsWithTheMinorNumberOfItsBusId() throws IOException {
        String printed = "0, GPU-bfdc8b4f-704c-083f-7343-60cf2b55cbf7, NVIDIA H200, 143771, 00000000:00:06.0\n";
        Path gpus = dir.resolve("proc-gpus");
        Files.createDirectories(gpus.resolve("0000:00:06.0"));
        Files.writeString(gpus.resolve("0000:00:06.0").resolve("information"),
                "Model: \t\t NVIDIA H200\nIRQ:   \t\t 0\nGPU UUID: \t GPU-bfdc8b4f-704c-083f-7343-60cf2b55cbf7\n"
                        + "Device Minor: \t 3\nBus Location: \t 0000:00:06.0\n");

        GpuInventory gpu = NvidiaSmi.parse(printed, bus -> NvidiaSmi.minorFrom(gpus, bus));

        assertThat(gpu.count()).isEqualTo(1);
        assertThat(gpu.type()).isEqualTo("H200");
        assertThat(gpu.offered()).containsExactly(new GpuDevice(0, "GPU-bfdc8b4f-704c-083f-7343-60cf2b55cbf7", "NVIDIA H200", 143771L));
        assertThat(gpu.minors()).isEqualTo(Map.of(0, 3));
        assertThat(NvidiaSmi.minorFrom(gpus, "00000000:3B:00.0")).as("a bus the driver does not describe").isEmpty();
        assertThat(NvidiaSmi.parse(printed, bus -> Optional.empty()).minors()).as("then the index stands").isEmpty();
    }

    @Test
    void aDeviceLineWithTheWrongFieldsIsRefused() {
        assertThatThrownBy(() -> NvidiaSmi.parse("0, NVIDIA H100 80GB HBM3\n"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("line 1 is not a GPU");
    }
}
