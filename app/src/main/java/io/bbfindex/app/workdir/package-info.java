@NullMarked
package io.bbfindex.app.workdir;

import org.jspecify.annotations.NullMarked;
