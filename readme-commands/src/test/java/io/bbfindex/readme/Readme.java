package io.bbfindex.readme;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The commands the README shows a user: launcher lines ({@code ./bbf-index ...}, in indented
 * blocks, a trailing {@code # comment} dropped) and console examples ({@code $ command} in a fenced
 * {@code console} block, with the output shown under it, if any).
 */
record Readme(List<String> launcherCommands, List<ConsoleExample> examples) {

  /** A {@code $ ...} line (continuations joined) and the lines printed under it in the README. */
  record ConsoleExample(String command, List<String> shownOutput) {}

  static Readme read(Path file) throws IOException {
    List<String> lines = Files.readAllLines(file);
    List<String> launcher = new ArrayList<>();
    List<ConsoleExample> examples = new ArrayList<>();
    boolean inConsole = false;
    boolean inOtherFence = false;
    String command = null;
    List<String> output = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (line.startsWith("```")) {
        if (inConsole || inOtherFence) {
          if (command != null) {
            examples.add(new ConsoleExample(command, List.copyOf(output)));
          }
          command = null;
          output.clear();
          inConsole = false;
          inOtherFence = false;
        } else if (line.strip().equals("```console")) {
          inConsole = true;
        } else {
          inOtherFence = true;
        }
        continue;
      }
      if (inConsole) {
        if (line.startsWith("$ ")) {
          if (command != null) {
            examples.add(new ConsoleExample(command, List.copyOf(output)));
          }
          output.clear();
          StringBuilder c = new StringBuilder(line.substring(2));
          while (c.toString().endsWith("\\") && i + 1 < lines.size()) {
            c.setLength(c.length() - 1);
            c.append(' ').append(lines.get(++i).strip());
          }
          command = c.toString().strip();
        } else if (command != null && !line.isBlank()) {
          output.add(line);
        }
        continue;
      }
      if (!inOtherFence && line.startsWith("    ./bbf-index")) {
        String c = line.strip();
        int comment = c.indexOf(" #");
        launcher.add((comment < 0 ? c : c.substring(0, comment)).strip());
      }
    }
    return new Readme(List.copyOf(launcher), List.copyOf(examples));
  }
}
