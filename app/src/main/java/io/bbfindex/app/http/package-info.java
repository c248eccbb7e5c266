@NullMarked
package io.bbfindex.app.http;

import org.jspecify.annotations.NullMarked;
