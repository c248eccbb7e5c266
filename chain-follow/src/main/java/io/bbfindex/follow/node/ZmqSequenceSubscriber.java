package io.bbfindex.follow.node;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;
import org.zeromq.ZMQException;

/**
 * Subscribes to the node's ZMQ {@code sequence} topic (JeroMQ, reconnecting by itself when the node
 * restarts) on a daemon thread and queues the decoded events for the follower, marking each event
 * that follows a counter gap. The queue is unbounded so the reader never drops; the follower drains
 * it promptly.
 */
public final class ZmqSequenceSubscriber implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(ZmqSequenceSubscriber.class.getName());
  private static final byte[] TOPIC =
      "sequence".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

  /**
   * How long a new connection may take for its ZMTP handshake before JeroMQ drops it and connects
   * again (its default is 30 s). JeroMQ 0.6.0 left 9 of 200 fresh outgoing connections idle on a
   * loaded 2-core machine: when the TCP connect completes, the connecter's selection key is
   * cancelled and the engine's handle for the same channel is added in the same pass of {@code
   * zmq.poll.Poller.run}, where {@code keyFor} still returns the cancelled key, so the engine is
   * never registered with the selector and neither sends its greeting nor reads the node's. Only
   * the handshake timer gets such a connection out (zeromq/jeromq pull request 1022 proposes a fix
   * of the Poller). A ZMTP handshake takes a few round trips, milliseconds to a local node.
   */
  private static final int HANDSHAKE_TIMEOUT_MILLIS = 2_000;

  /** An event and whether messages were lost just before it. */
  public record Received(SequenceEvent event, boolean gapBefore) {}

  private final String endpoint;
  private final ZContext context = new ZContext(1);
  private final BlockingQueue<Received> queue = new LinkedBlockingQueue<>();
  private final Thread reader;
  private final ZMQ.Socket monitor;
  private volatile boolean closed;

  /** Connects to {@code endpoint} ({@code tcp://host:port}) and starts reading. */
  public ZmqSequenceSubscriber(String endpoint) {
    this.endpoint = endpoint;
    ZMQ.Socket socket = context.createSocket(SocketType.SUB);
    socket.setReceiveTimeOut(200);
    socket.setRcvHWM(0); // no drop on our side; the publisher's own HWM may still drop (gap)
    socket.setHandshakeIvl(HANDSHAKE_TIMEOUT_MILLIS);
    socket.subscribe(TOPIC);
    // The connection is made in the background: a monitor tells when it is (awaitConnected).
    String monitorAddress = "inproc://zmq-sequence-monitor-" + System.identityHashCode(this);
    socket.monitor(monitorAddress, ZMQ.EVENT_HANDSHAKE_PROTOCOL);
    this.monitor = context.createSocket(SocketType.PAIR);
    monitor.connect(monitorAddress);
    socket.connect(endpoint);
    this.reader = Thread.ofPlatform().daemon().name("zmq-sequence").start(() -> read(socket));
  }

  /**
   * Waits until the connection to the publisher has completed its ZMTP handshake (after which the
   * SUB sends its subscription), then {@code settle} more for the subscription to reach it (a SUB
   * joins asynchronously: what is published before is lost, so the mempool snapshot must come
   * after).
   *
   * @return whether it connected within {@code timeout}
   */
  public boolean awaitConnected(java.time.Duration timeout, java.time.Duration settle)
      throws InterruptedException {
    monitor.setReceiveTimeOut((int) Math.max(1, timeout.toMillis()));
    ZMQ.Event event = ZMQ.Event.recv(monitor);
    if (event == null) {
      return false;
    }
    Thread.sleep(settle);
    return true;
  }

  public String endpoint() {
    return endpoint;
  }

  /** The next event, waiting at most {@code timeoutMillis}; {@code null} if none came. */
  public @Nullable Received poll(long timeoutMillis) throws InterruptedException {
    return queue.poll(timeoutMillis, TimeUnit.MILLISECONDS);
  }

  private void read(ZMQ.Socket socket) {
    SequenceGapDetector gaps = new SequenceGapDetector();
    try {
      while (!closed) {
        byte[] topic;
        try {
          topic = socket.recv();
        } catch (ZMQException e) {
          if (closed) {
            return;
          }
          throw e;
        }
        if (topic == null) {
          continue; // receive timeout: look at `closed` again
        }
        byte[] body = socket.hasReceiveMore() ? socket.recv() : null;
        byte[] counter = socket.hasReceiveMore() ? socket.recv() : null;
        while (socket.hasReceiveMore()) {
          socket.recv();
        }
        if (body == null || counter == null) {
          LOG.log(System.Logger.Level.WARNING, "short ZMQ sequence message from " + endpoint);
          continue;
        }
        try {
          SequenceEvent event = SequenceEvent.decode(body, counter);
          queue.add(new Received(event, gaps.gapBefore(event.counter())));
        } catch (IllegalArgumentException e) {
          LOG.log(
              System.Logger.Level.WARNING, "undecodable ZMQ sequence message: " + e.getMessage());
        }
      }
    } catch (RuntimeException e) {
      if (!closed) {
        LOG.log(System.Logger.Level.ERROR, "ZMQ reader of " + endpoint + " stopped", e);
      }
    } finally {
      socket.close();
    }
  }

  /** Stops the reader (it notices within its 200 ms receive timeout) and the ZMQ context. */
  @Override
  public void close() {
    closed = true;
    try {
      reader.join(2_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    monitor.close();
    context.close();
  }
}
