package io.bbfindex.benchmarks;

import java.io.IOException;
import java.lang.classfile.Attributes;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.MethodModel;
import java.lang.classfile.attribute.LineNumberInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * How many source lines each method of compiled classes spans, read from the classes' {@code
 * LineNumberTable}s (the JDK's class-file API: no source parser). A method spans from the first to
 * the last line that carries its code, the bodies of its lambdas included ({@code lambda$m$N}
 * belongs to {@code m}); its signature and closing brace are not counted, so the source count is
 * one to three lines more. A constructor starts at its own first line (field initializers, which
 * javac copies into it, sit above it); static initializers are not methods and are left out.
 */
final class MethodSpans {

  /** The longest method the benchmarks may have, in lines of code span. */
  static final int MAX_LINES = 60;

  private MethodSpans() {}

  /** One method: {@code Class.method} (the simple binary name of its class) and its span. */
  record Span(String name, int firstLine, int lastLine) {
    int lines() {
      return lastLine - firstLine + 1;
    }

    @Override
    public String toString() {
      return name + " (" + lines() + " lines from line " + firstLine + ")";
    }
  }

  /** Every method under {@code classesDir} longer than {@link #MAX_LINES}, longest first. */
  static List<Span> longerThanLimit(Path classesDir) throws IOException {
    List<Span> tooLong = new ArrayList<>();
    try (Stream<Path> files = Files.walk(classesDir)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
        for (Span span : spans(ClassFile.of().parse(Files.readAllBytes(file)))) {
          if (span.lines() > MAX_LINES) {
            tooLong.add(span);
          }
        }
      }
    }
    tooLong.sort(Comparator.comparingInt(Span::lines).reversed());
    return tooLong;
  }

  /** The spans of one class's methods, each lambda body folded into its enclosing method. */
  static List<Span> spans(ClassModel model) {
    String className = model.thisClass().asInternalName();
    String simple = className.substring(className.lastIndexOf('/') + 1);
    List<Span> methods = new ArrayList<>();
    List<Span> lambdas = new ArrayList<>();
    for (MethodModel method : model.methods()) {
      String name = method.methodName().stringValue();
      List<Integer> lines = lines(method);
      if (lines.isEmpty() || name.equals("<clinit>")) {
        continue;
      }
      int first = name.equals("<init>") ? lines.getFirst() : min(lines);
      int last = lines.stream().filter(l -> l >= first).mapToInt(Integer::intValue).max().orElse(0);
      if (name.startsWith("lambda$")) {
        lambdas.add(new Span(enclosingOf(name), first, last));
      } else {
        methods.add(new Span(simple + "." + name, first, last));
      }
    }
    for (Span lambda : lambdas) {
      foldInto(methods, simple + "." + lambda.name(), lambda);
    }
    return methods;
  }

  /** Widens the enclosing method (of that name, the last one starting above the lambda). */
  private static void foldInto(List<Span> methods, String name, Span lambda) {
    int best = -1;
    for (int i = 0; i < methods.size(); i++) {
      Span m = methods.get(i);
      if (m.name().equals(name)
          && m.firstLine() <= lambda.firstLine()
          && (best < 0 || m.firstLine() > methods.get(best).firstLine())) {
        best = i;
      }
    }
    if (best >= 0) {
      Span m = methods.get(best);
      methods.set(
          best,
          new Span(
              m.name(),
              Math.min(m.firstLine(), lambda.firstLine()),
              Math.max(m.lastLine(), lambda.lastLine())));
    }
  }

  /** {@code lambda$measure$3} -> {@code measure}; {@code lambda$new$0} -> {@code <init>}. */
  private static String enclosingOf(String lambdaName) {
    String enclosing = lambdaName.substring("lambda$".length(), lambdaName.lastIndexOf('$'));
    return enclosing.equals("new") ? "<init>" : enclosing;
  }

  /** The method's line numbers in bytecode order. */
  private static List<Integer> lines(MethodModel method) {
    return method
        .code()
        .flatMap(code -> code.findAttribute(Attributes.lineNumberTable()))
        .map(t -> t.lineNumbers().stream().map(LineNumberInfo::lineNumber).toList())
        .orElse(List.of());
  }

  private static int min(List<Integer> lines) {
    return lines.stream().mapToInt(Integer::intValue).min().orElseThrow();
  }
}
