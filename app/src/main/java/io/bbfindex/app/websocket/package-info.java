@NullMarked
package io.bbfindex.app.websocket;

import org.jspecify.annotations.NullMarked;
