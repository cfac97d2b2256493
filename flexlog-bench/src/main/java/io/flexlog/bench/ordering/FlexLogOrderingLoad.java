package io.flexlog.bench.ordering;

import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.net.ClientBootstrap;
import io.flexlog.core.net.Transport;
import io.netty.channel.ChannelFuture;
import io.netty.channel.EventLoopGroup;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The FlexLog side: one {@link SequencerLoadClient} per attachment of a {@link SequencerTree}, each
 * on its own connection to the sequencer node hosting its shard's color. The connections share
 * {@code eventLoops} client threads.
 */
final class FlexLogOrderingLoad implements OrderingLoad {
  private static final int CONNECT_TIMEOUT_MS = 5000;
  private final SequencerTree tree;
  private final List<SequencerLoadClient> clients = new ArrayList<>();
  private final EventLoopGroup group;

  FlexLogOrderingLoad(
      SequencerTree tree, int window, int eventLoops, LoadControl control, SnObserver observer) {
    this.tree = tree;
    this.group = Transport.eventLoops("flexlog-obench-client", eventLoops);
    SplittableRandom random = new SplittableRandom();
    for (SequencerTree.Attachment attachment : tree.attachments()) {
      // Token sessions are random like a client's, never 0; one per load client.
      long session = random.nextLong() | 1L;
      clients.add(new SequencerLoadClient(attachment, window, session, control, observer));
    }
  }

  @Override
  public void prepare(Duration timeout) throws LoadFailure, InterruptedException {
    List<ChannelFuture> connects = new ArrayList<>();
    for (int i = 0; i < clients.size(); i++) {
      connects.add(connect(i));
    }
    long deadlineNs = System.nanoTime() + timeout.toNanos();
    for (int i = 0; i < clients.size(); i++) {
      if (!connects.get(i).await(remainingMs(deadlineNs), TimeUnit.MILLISECONDS)
          || !connects.get(i).isSuccess()) {
        Throwable cause = connects.get(i).cause();
        throw new LoadFailure(
            "client "
                + i
                + " cannot connect to "
                + address(i).hostPort()
                + (cause == null ? " in time" : ": " + cause.getMessage()));
      }
    }
    CompletableFuture<?>[] ready =
        clients.stream().map(SequencerLoadClient::ready).toArray(CompletableFuture[]::new);
    try {
      CompletableFuture.allOf(ready).get(remainingMs(deadlineNs), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw new LoadFailure(e.getCause().getMessage(), e.getCause());
    } catch (TimeoutException e) {
      throw new LoadFailure(
          "the sequencer tree did not answer every client's first order request within "
              + timeout.toSeconds()
              + " s");
    }
  }

  private ChannelFuture connect(int index) {
    SequencerLoadClient client = clients.get(index);
    NodeAddress node = address(index);
    return ClientBootstrap.framed(
            group, CONNECT_TIMEOUT_MS, Transport.MAX_FRAME_BYTES, () -> client)
        .connect(node.host(), node.port());
  }

  private NodeAddress address(int client) {
    return tree.topology().node(tree.attachments().get(client).sequencerNodeId());
  }

  private static long remainingMs(long deadlineNs) {
    return Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineNs - System.nanoTime()));
  }

  @Override
  public void start() {
    for (SequencerLoadClient client : clients) {
      client.start();
    }
  }

  @Override
  public List<ClientStats> snapshot(Duration timeout) throws LoadFailure, InterruptedException {
    List<ClientStats> copies = new ArrayList<>(clients.size());
    for (int i = 0; i < clients.size(); i++) {
      try {
        copies.add(clients.get(i).snapshot().get(timeout.toNanos(), TimeUnit.NANOSECONDS));
      } catch (ExecutionException | TimeoutException e) {
        throw new LoadFailure("cannot read the numbers of client " + i + ": " + e, e);
      }
    }
    return copies;
  }

  @Override
  public void close() {
    for (SequencerLoadClient client : clients) {
      client.close();
    }
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
