@NullMarked
package io.bbfindex.app.route;

import org.jspecify.annotations.NullMarked;
