package io.bbfindex.app.cli;

import io.bbfindex.app.bitcoincore.ChainAccess;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Optional;

/**
 * What the commands run against: where they print, how they reach chain data, and the project root
 * the launcher names ({@code -Dbbf.home}; empty when run otherwise, then there is no embedded
 * demo).
 */
record CliContext(PrintStream out, PrintStream err, ChainAccess access, Optional<Path> home) {}
