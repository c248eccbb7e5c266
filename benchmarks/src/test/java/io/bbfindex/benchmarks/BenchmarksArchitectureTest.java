package io.bbfindex.benchmarks;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The benchmarks read like the product: no package cycle (the suites use the {@code harness}; only
 * {@link BenchMain} knows the suites), and no method longer than {@value MethodSpans#MAX_LINES}
 * lines.
 */
class BenchmarksArchitectureTest {

  @Test
  void noPackageCycles() {
    JavaClasses benchmarks =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.bbfindex.benchmarks");
    slices().matching("io.bbfindex.(**)").should().beFreeOfCycles().check(benchmarks);
  }

  @Test
  void noMethodIsLongerThanSixtyLines() throws IOException, URISyntaxException {
    Path classes =
        Path.of(BenchMain.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    List<MethodSpans.Span> tooLong = MethodSpans.longerThanLimit(classes);
    assertEquals(
        List.of(), tooLong, "methods over " + MethodSpans.MAX_LINES + " lines (split them)");
  }
}
