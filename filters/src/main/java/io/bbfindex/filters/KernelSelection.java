package io.bbfindex.filters;

import io.bbfindex.filters.BlockedBloomFilter.Kernel;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.management.ManagementFactory;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Picks the kernel once per JVM, the first time a filter is made (lazy holder idiom), and logs one
 * warning when it has to fall back to scalar.
 *
 * <p>{@link VectorGroupKernel} is named here only as a string and loaded reflectively, after the
 * checks below pass, so no class that refers to {@code jdk.incubator.vector} is ever loaded on a
 * JVM started without {@code --add-modules=jdk.incubator.vector}. The vector kernel is refused
 * when:
 *
 * <ul>
 *   <li>the module is not in the boot layer;
 *   <li>the JIT that intrinsifies the Vector API (C2) is off: interpreted or C1-only vector code
 *       boxes every vector and is far slower than the scalar kernel;
 *   <li>the CPU's vectors are narrower than 128 bits;
 *   <li>the system property {@code bbf.kernel} is {@code scalar} (an operator's escape hatch).
 * </ul>
 */
final class KernelSelection {

  static final String VECTOR_MODULE = "jdk.incubator.vector";
  static final String VECTOR_KERNEL_CLASS = "io.bbfindex.filters.VectorGroupKernel";
  static final String KERNEL_PROPERTY = "bbf.kernel";

  private static final System.Logger LOG = System.getLogger("io.bbfindex.filters");

  private KernelSelection() {}

  /** What was chosen, and why the vector kernel is not available when it is not. */
  private record Choice(
      Kernel best,
      @Nullable MethodHandle vectorFactory,
      @Nullable String vectorUnavailableReason) {}

  private static final class Holder {
    static final Choice CHOICE = choose();
  }

  static Kernel best() {
    return Holder.CHOICE.best();
  }

  static boolean isAvailable(Kernel kernel) {
    return kernel == Kernel.SCALAR || Holder.CHOICE.vectorFactory() != null;
  }

  /** Why the vector kernel cannot be used, or {@code null} when it can. */
  static @Nullable String vectorUnavailableReason() {
    return Holder.CHOICE.vectorUnavailableReason();
  }

  /**
   * A kernel of the given kind for the geometry.
   *
   * @throws UnsupportedOperationException if the vector kernel is asked for and unavailable
   */
  static GroupKernel create(BbfGeometry geometry, Kernel kernel) {
    if (kernel == Kernel.SCALAR) {
      return new ScalarGroupKernel(geometry);
    }
    Choice choice = Holder.CHOICE;
    MethodHandle vectorFactory = choice.vectorFactory();
    if (vectorFactory == null) {
      throw new UnsupportedOperationException(
          "the VECTOR kernel is unavailable: " + choice.vectorUnavailableReason());
    }
    try {
      return (GroupKernel) vectorFactory.invokeExact(geometry);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException("cannot create the vector kernel", t);
    }
  }

  private static Choice choose() {
    String reason = vectorBlocker();
    MethodHandle factory = null;
    if (reason == null) {
      try {
        Class<?> vectorClass =
            Class.forName(VECTOR_KERNEL_CLASS, true, KernelSelection.class.getClassLoader());
        MethodHandles.Lookup lookup = MethodHandles.lookup();
        lookup.findStatic(vectorClass, "checkUsable", MethodType.methodType(void.class)).invoke();
        factory =
            lookup.findStatic(
                vectorClass, "create", MethodType.methodType(GroupKernel.class, BbfGeometry.class));
      } catch (Throwable t) { // LinkageError, reflective failure, or checkUsable's refusal
        if (t instanceof VirtualMachineError vmError) {
          throw vmError;
        }
        reason = "the vector kernel failed to load: " + t;
      }
    }
    boolean forcedScalar =
        "scalar".equals(System.getProperty(KERNEL_PROPERTY, "").trim().toLowerCase(Locale.ROOT));
    if (forcedScalar) {
      LOG.log(System.Logger.Level.INFO, "BBF kernel: SCALAR (forced by -D" + KERNEL_PROPERTY + ")");
      return new Choice(Kernel.SCALAR, factory, reason);
    }
    if (factory == null) {
      LOG.log(
          System.Logger.Level.WARNING,
          "BBF kernel: falling back to SCALAR because "
              + reason
              + "; lookups stay correct but slower");
      return new Choice(Kernel.SCALAR, null, reason);
    }
    return new Choice(Kernel.VECTOR, factory, null);
  }

  /** Why the vector kernel must not even be loaded, or {@code null}. */
  private static @Nullable String vectorBlocker() {
    if (ModuleLayer.boot().findModule(VECTOR_MODULE).isEmpty()) {
      return "the module "
          + VECTOR_MODULE
          + " is not present (start the JVM with --add-modules="
          + VECTOR_MODULE
          + ")";
    }
    if (System.getProperty("java.vm.info", "").contains("interpreted mode")) {
      return "the JVM runs interpreted (-Xint), so the Vector API is not compiled";
    }
    try {
      var diagnostics =
          ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class);
      if (diagnostics != null
          && Boolean.parseBoolean(diagnostics.getVMOption("TieredCompilation").getValue())
          && Integer.parseInt(diagnostics.getVMOption("TieredStopAtLevel").getValue()) < 4) {
        return "the C2 compiler is off (-XX:TieredStopAtLevel < 4), so the Vector API is not"
            + " intrinsified";
      }
    } catch (RuntimeException | LinkageError e) {
      // Not HotSpot, or no management module: assume a normal optimising JIT.
    }
    return null;
  }
}
