package io.bbfindex.readme;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.bbfindex.app.cli.Cli;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The README's configuration table and the options the command line declares (its picocli model)
 * agree both ways: every option of every command is in the table under that command, and every
 * option the table names for a command is one the command takes. An option added without its row,
 * or a row left behind by a removed option, fails here.
 */
class ConfigurationTableTest {
  private static final Pattern OPTION = Pattern.compile("--[a-z][a-z0-9-]*");

  @Test
  void theReadmeTableDocumentsExactlyTheDeclaredOptions() throws IOException {
    Set<String> documented = documented();
    Set<String> declared = declared();
    assertFalse(declared.isEmpty(), "the command model declares no option");
    Set<String> undocumented = new TreeSet<>(declared);
    undocumented.removeAll(documented);
    Set<String> notDeclared = new TreeSet<>(documented);
    notDeclared.removeAll(declared);
    assertEquals(
        Set.of(),
        undocumented,
        "declared options missing from the README's configuration table (command option)");
    assertEquals(
        Set.of(),
        notDeclared,
        "options the README's configuration table names that the command does not declare");
  }

  /** {@code "serve --port"} for every option of every command, {@code --help} aside. */
  private static Set<String> declared() {
    Set<String> out = new TreeSet<>();
    for (var sub : Cli.model().subcommands().entrySet()) {
      CommandSpec command = sub.getValue().getCommandSpec();
      if (command.usageMessage().hidden()) {
        continue;
      }
      for (OptionSpec o : command.options()) {
        if (!o.usageHelp() && !o.versionHelp()) {
          out.add(sub.getKey() + " " + o.longestName());
        }
      }
    }
    return out;
  }

  /**
   * {@code "serve --port"} for each option named in the first column of a row of the table under
   * "## Configuration" and each command of its second column ({@code serve, ingest --eth-rpc}: the
   * first word of each comma-separated entry; rows of the launcher name no option).
   */
  private static Set<String> documented() throws IOException {
    List<String> rows = configurationRows();
    Set<String> out = new TreeSet<>();
    for (String row : rows) {
      String[] cells = row.split("\\|");
      // "| option | command | default | meaning |": cells[1] options, cells[2] commands
      List<String> commands = new ArrayList<>();
      for (String entry : cells[2].split(",")) {
        commands.add(entry.strip().split("\\s+")[0]);
      }
      Matcher m = OPTION.matcher(cells[1]);
      while (m.find()) {
        for (String command : commands) {
          out.add(command + " " + m.group());
        }
      }
    }
    return out;
  }

  /** The body rows of the first table after the "## Configuration" heading. */
  private static List<String> configurationRows() throws IOException {
    List<String> lines = Files.readAllLines(Launcher.root().resolve("README.md"));
    int heading = lines.indexOf("## Configuration");
    List<String> rows = new ArrayList<>();
    boolean inTable = false;
    for (String line : lines.subList(heading + 1, lines.size())) {
      if (line.startsWith("|")) {
        inTable = true;
        if (!line.startsWith("| option ") && !line.startsWith("|---")) {
          rows.add(line);
        }
      } else if (inTable || line.startsWith("#")) {
        break;
      }
    }
    assertFalse(rows.isEmpty(), "no table under ## Configuration in README.md");
    return rows;
  }
}
