package io.fleetjobs.readme;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** How the executable README reads README.md: sections, fenced blocks, and commands as bash reads them. */
class ReadmeBlocksTest {
    @Test
    void aCommandEndsWhereBashSaysItIsComplete() {
        Readme.Block block = new Readme.Block("sh", """
                # a comment line
                A=$(curl -s -X POST x -H 'a: b' \\
                     -d '{
                  "name": "n"
                }')
                echo "$A"                  # the comment's apostrophe isn't a quote
                bin/jobctl cancel $L && bin/jobctl watch $L
                """);

        assertThat(block.commands()).containsExactly(
                "A=$(curl -s -X POST x -H 'a: b' \\\n     -d '{\n  \"name\": \"n\"\n}')",
                "echo \"$A\"                  # the comment's apostrophe isn't a quote",
                "bin/jobctl cancel $L && bin/jobctl watch $L");
    }

    @Test
    void aCommandThatNeverEndsIsAnError() {
        assertThatThrownBy(() -> new Readme.Block("sh", "echo 'open\n").commands()).hasMessageContaining("never ends");
    }

    @Test
    void theSectionsThisModuleRunsExistOnceEachAndHoldCommands() {
        Readme readme = Readme.read(Path.of(System.getProperty("repo.root", "..")).resolve("README.md"));

        for (String section : new String[] {"A five-minute tour", "Command line and SDK", "The jobs API (through the gateway, port 8080)"}) {
            assertThat(readme.shellCommands(section)).as(section).isNotEmpty();
        }
        assertThat(readme.blocks("Command line and SDK", "java")).hasSize(1);
    }
}
