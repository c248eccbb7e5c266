package io.bbfindex.app.push;

/**
 * A connection that receives the events of the topics it subscribed to. {@link #deliver} is called
 * with {@link PushHub}'s lock held, from the events thread or the subscribing thread: it must only
 * hand the event to the connection's event loop.
 */
public interface Subscriber {
  void deliver(PushEvent event);
}
