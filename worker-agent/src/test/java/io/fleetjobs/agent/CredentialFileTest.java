package io.fleetjobs.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The machine's credential survives a restart of the agent, readable by the agent's uid only. */
class CredentialFileTest {
    @TempDir
    Path workDir;

    @Test
    void noFileIsNoCredentialAndAWrittenOneReadsBackOwnerOnly() throws Exception {
        CredentialFile file = CredentialFile.in(workDir);
        assertThat(file.path()).isEqualTo(workDir.resolve("credential"));
        assertThat(file.read()).isEmpty();

        file.write("first-credential");
        assertThat(Files.getPosixFilePermissions(file.path())).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        assertThat(CredentialFile.in(workDir).read()).contains("first-credential"); // as a restarted agent reads it

        file.write("second-credential");
        assertThat(file.read()).contains("second-credential");
        assertThat(Files.getPosixFilePermissions(file.path())).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        try (var left = Files.list(workDir)) {
            assertThat(left.map(p -> p.getFileName().toString())).containsExactly("credential"); // no temporary file left
        }
    }

    @Test
    void aFileOthersCouldReadIsMadeTheOwnersOnly() throws Exception {
        Path path = Files.writeString(workDir.resolve("credential"), "kept\n");
        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-r--r--"));
        assertThat(CredentialFile.in(workDir).read()).contains("kept");
        assertThat(Files.getPosixFilePermissions(path)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
    }

    @Test
    void agentsSharingAWorkDirectoryKeepACredentialEach() {
        // local mode runs its agents with one work directory: one file for all of them let a restarted agent present
        // another machine's credential, and its join was refused while its machine held attempts
        CredentialFile.forMachine(workDir, "local-1").write("one");
        CredentialFile.forMachine(workDir, "local-2").write("two");
        assertThat(CredentialFile.forMachine(workDir, "local-1").read()).contains("one");
        assertThat(CredentialFile.forMachine(workDir, "local-2").read()).contains("two");
        assertThat(CredentialFile.forMachine(workDir, "local-1").path()).isEqualTo(workDir.resolve("local-1/credential"));
    }

    @Test
    void aCredentialKeptByAnEarlierAgentAtTheTopIsReadUntilTheMachinesOwnIsWritten() throws Exception {
        Files.writeString(workDir.resolve("credential"), "from-before\n");
        CredentialFile file = CredentialFile.forMachine(workDir, "m-1");
        assertThat(file.read()).contains("from-before");
        file.write("rotated");
        assertThat(CredentialFile.forMachine(workDir, "m-1").read()).contains("rotated");
    }

    @Test
    void aMissingWorkDirectoryIsMade() {
        CredentialFile file = CredentialFile.in(workDir.resolve("not-yet"));
        file.write("c");
        assertThat(file.read()).contains("c");
    }
}
