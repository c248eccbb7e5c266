package io.bbfindex.app.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.describe;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.EvaluationResult;
import io.bbfindex.filters.MembershipFilter;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.module.ModuleDescriptor;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The layering of the product, checked on its compiled classes (ArchUnit), so that a review never
 * has to say it again: {@code filters} knows nothing of Bitcoin or of servers, {@code chain-ingest}
 * knows nothing of the app, nobody reaches into {@code filters}' unexported packages nor into the
 * internal packages of {@code chain-ingest}, {@code chain-follow} and {@code eth-ingest}, the BBF's
 * peers serve the catalog only, no package cycle, no bitcoinj internals, and no benchmark harness
 * in the product.
 *
 * <p>This module is the last product module built, so its test class path holds the main classes of
 * every product module ({@code filters}, {@code chain-ingest}, {@code chain-follow}, {@code
 * eth-ingest}, {@code app}); the {@code benchmarks} module checks itself ({@code
 * BenchmarksArchitectureTest}).
 */
class LayeringTest {

  private static final String FILTERS = "io.bbfindex.filters..";
  private static final String INGEST = "io.bbfindex.ingest..";
  private static final String APP = "io.bbfindex.app..";
  private static final String ETH = "io.bbfindex.eth..";
  private static final String FOLLOW = "io.bbfindex.follow..";
  private static final String PEERS = "io.bbfindex.filters.peers..";

  private static JavaClasses product;
  private static JavaClasses everything;

  @BeforeAll
  static void importClasses() {
    // The modules come as target/classes folders or, in a reactor build past `package`, as jars;
    // test classes as test-classes folders or *-tests.jar test-jars.
    ImportOption mainOnly =
        location ->
            ImportOption.Predefined.DO_NOT_INCLUDE_TESTS.includes(location)
                && !location.matches(java.util.regex.Pattern.compile(".*-tests\\.jar.*"));
    product = new ClassFileImporter().withImportOption(mainOnly).importPackages("io.bbfindex");
    everything = new ClassFileImporter().importPackages("io.bbfindex");
    assertFalse(
        product.that(resideIn(FILTERS)).isEmpty() || product.that(resideIn(INGEST)).isEmpty(),
        "the filters and chain-ingest classes must be on the test class path");
  }

  @Test
  void filtersDependOnTheJdkOnly() {
    classes()
        .that()
        .resideInAPackage(FILTERS)
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(
            FILTERS,
            "java..",
            "jdk.incubator.vector..",
            "com.sun.management..",
            "org.jspecify.annotations..")
        .because(
            "filters is JDK only (but for JSpecify's nullness annotations, which NullAway reads"
                + " at compile time): it knows nothing of Bitcoin, LevelDB or servers")
        .check(product);
  }

  @Test
  void chainIngestKnowsNothingOfTheApp() {
    noClasses()
        .that()
        .resideInAPackage(INGEST)
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(APP, "io.netty..", "io.micrometer..", "com.fasterxml.jackson..")
        .because("chain-ingest reads Bitcoin Core's data and builds filters; serving is the app's")
        .check(product);
  }

  @Test
  void chainFollowKnowsNothingOfTheApp() {
    noClasses()
        .that()
        .resideInAPackage(FOLLOW)
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(APP, ETH, "io.netty..", "io.micrometer..")
        .because("chain-follow follows a node over RPC and ZMQ; serving and metrics are the app's")
        .check(product);
  }

  @Test
  void ethIngestKnowsNothingOfBitcoinNorOfTheApp() {
    noClasses()
        .that()
        .resideInAPackage(ETH)
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(APP, INGEST, FOLLOW, "org.bitcoinj..", "io.netty..", "io.micrometer..")
        .because(
            "eth-ingest reads an Ethereum node over JSON-RPC and builds filters; serving is the"
                + " app's")
        .check(product);
  }

  @Test
  void onlyExportedFilterPackagesAreUsedOutsideFilters() {
    Set<String> exported = filtersExports();
    noClasses()
        .that()
        .resideOutsideOfPackage(FILTERS)
        .should()
        .dependOnClassesThat(
            describe(
                "reside in a package that filters' module-info does not export " + exported,
                (JavaClass c) ->
                    c.getPackageName().startsWith("io.bbfindex.filters")
                        && !exported.contains(c.getPackageName())))
        .check(everything);
  }

  @Test
  void peersAreUsedByTheCatalogOnly() {
    noClasses()
        .that()
        .resideOutsideOfPackages(PEERS, "io.bbfindex.filters.catalog..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage(PEERS)
        .because(
            "the peers are what the BBF is compared against (the catalog and the JMH suites); the"
                + " product's own cuckoo filter and hash table live in filters.cuckoo")
        .check(product);
  }

  /**
   * The API packages of the Bitcoin reader, the follower and the Ethereum source: what the other
   * modules may use. Every other package of theirs (and every package added later, until it is
   * named here) is internal. ArchUnit rules instead of {@code module-info}: these modules read
   * leveldbjni, bitcoinj and web3j, automatic modules a JPMS module would have to name by derived
   * names, while the rule says the same thing on the compiled classes.
   */
  private static final List<ModuleApi> MODULE_APIS =
      List.of(
          new ModuleApi(
              "chain-ingest",
              "io.bbfindex.ingest",
              Set.of(
                  // the Core reader: the NodeIndex facade, its records and the shared codecs
                  "io.bbfindex.ingest",
                  "io.bbfindex.ingest.records",
                  "io.bbfindex.ingest.encoding",
                  "io.bbfindex.ingest.blockfile",
                  "io.bbfindex.ingest.archive",
                  // the own txid index, for nodes without -txindex
                  "io.bbfindex.ingest.ownindex",
                  // the filter builder and the filter store
                  "io.bbfindex.ingest.filterbuild",
                  "io.bbfindex.ingest.store")),
          new ModuleApi(
              "chain-follow",
              "io.bbfindex.follow",
              Set.of(
                  "io.bbfindex.follow",
                  "io.bbfindex.follow.events",
                  "io.bbfindex.follow.layer",
                  "io.bbfindex.follow.node")),
          new ModuleApi("eth-ingest", "io.bbfindex.eth", Set.of("io.bbfindex.eth")));

  @Test
  void otherModulesUseOnlyTheApiPackagesOfChainIngestChainFollowAndEthIngest() {
    List<String> violations = new ArrayList<>();
    for (ModuleApi module : MODULE_APIS) {
      EvaluationResult result =
          noClasses()
              .that()
              .resideOutsideOfPackage(module.root() + "..")
              .should()
              .dependOnClassesThat(
                  describe(
                      "reside in an internal package of "
                          + module.name()
                          + " (its API: "
                          + module.apiPackages().stream().sorted().toList()
                          + ")",
                      (JavaClass c) -> module.isInternal(c.getPackageName())))
              .because("a module's internal packages change without its users noticing")
              .evaluate(product);
      if (result.hasViolation()) {
        violations.add(result.getFailureReport().toString());
      }
    }
    assertTrue(violations.isEmpty(), String.join("\n", violations));
  }

  /** A module's root package and the packages under it that other modules may use. */
  private record ModuleApi(String name, String root, Set<String> apiPackages) {
    boolean isInternal(String packageName) {
      boolean inModule = packageName.equals(root) || packageName.startsWith(root + ".");
      return inModule && !apiPackages.contains(packageName);
    }
  }

  @Test
  void noPackageCycles() {
    slices().matching("io.bbfindex.(**)").should().beFreeOfCycles().check(product);
  }

  @Test
  void noBitcoinjInternals() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAPackage("org.bitcoinj..internal..")
        .because("bitcoinj's internal packages are not its API and change without notice")
        .check(everything);
  }

  @Test
  void noBenchmarkHarnessInTheProduct() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("org.openjdk.jmh..", "io.bbfindex.benchmarks..")
        .orShould()
        .haveSimpleNameContaining("Bench")
        .because("benchmarks live in the benchmarks module and in each module's src/jmh")
        .check(product);
  }

  private static com.tngtech.archunit.base.DescribedPredicate<JavaClass> resideIn(String pattern) {
    return JavaClass.Predicates.resideInAPackage(pattern);
  }

  /** The packages {@code filters}' compiled {@code module-info} exports. */
  private static Set<String> filtersExports() {
    try {
      Path location =
          Path.of(
              MembershipFilter.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      InputStream in;
      if (Files.isDirectory(location)) {
        in = Files.newInputStream(location.resolve("module-info.class"));
      } else {
        var jar = new java.util.jar.JarFile(location.toFile());
        in = jar.getInputStream(jar.getEntry("module-info.class"));
      }
      try (in) {
        return ModuleDescriptor.read(in).exports().stream()
            .map(ModuleDescriptor.Exports::source)
            .collect(Collectors.toUnmodifiableSet());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }
}
