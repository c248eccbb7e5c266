@NullMarked
package io.bbfindex.app.esplora;

import org.jspecify.annotations.NullMarked;
