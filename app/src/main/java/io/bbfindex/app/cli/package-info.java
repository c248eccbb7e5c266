@NullMarked
package io.bbfindex.app.cli;

import org.jspecify.annotations.NullMarked;
