package io.bbfindex.follow.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** bitcoin.conf read as bitcoind and bitcoin-cli read it, and the node address that follows. */
class NodeConfTest {
  @TempDir Path base;

  private NodeConf conf(String text) throws IOException {
    Path file = base.resolve(NodeConf.FILE_NAME);
    Files.writeString(file, text);
    return NodeConf.read(file, base);
  }

  private static final NodeAccess.Flags NO_FLAGS =
      new NodeAccess.Flags(null, null, null, null, null);

  @Test
  void theRegtestSectionsRpcPortIsWhereTheNodeListens() throws IOException {
    NodeConf c =
        conf(
            """
            # a user's regtest node
            regtest=1
            txindex=1
            [regtest]
            rpcport=19555
            zmqpubsequence=tcp://127.0.0.1:19567
            """);
    assertEquals("regtest", c.chain());
    NodeAccess a = NodeAccess.resolve(base.resolve("regtest"), "regtest", c, NO_FLAGS);
    assertEquals(URI.create("http://127.0.0.1:19555/"), a.rpc());
    assertEquals("tcp://127.0.0.1:19567", a.zmq());
    assertEquals(
        new RpcCredentials.Cookie(base.resolve("regtest").resolve(".cookie")), a.credentials());
    assertTrue(a.from().startsWith("rpcport in "), a.from());
  }

  @Test
  void aTopLevelRpcPortAppliesToMainnetOnlyAsInCore() throws IOException {
    NodeConf c = conf("chain=regtest\nrpcport=9999\n");
    assertEquals(Optional.empty(), c.get("regtest", "rpcport"));
    assertEquals(
        URI.create("http://127.0.0.1:18443/"),
        NodeAccess.resolve(base, "regtest", c, NO_FLAGS).rpc());
    assertEquals(Optional.of("9999"), c.get("main", "rpcport"));
    // a setting that is not network-only applies everywhere
    NodeConf user = conf("chain=regtest\nrpcuser=alice\nrpcpassword=secret\n");
    assertEquals(
        new RpcCredentials.UserPassword("alice", "secret"),
        NodeAccess.resolve(base, "regtest", user, NO_FLAGS).credentials());
  }

  @Test
  void networkPrefixedKeysSectionsAndFirstValueWins() throws IOException {
    NodeConf c =
        conf(
            """
            testnet4=1
            testnet4.rpcport=4001
            [testnet4]
            rpcport=4002
            [main]
            rpcport=1
            """);
    assertEquals("testnet4", c.chain());
    assertEquals(Optional.of("4001"), c.get("testnet4", "rpcport"));
    assertEquals(Optional.of("1"), c.get("main", "rpcport"));
  }

  @Test
  void includeconfIsReadRelativeToTheDataDirectory() throws IOException {
    Files.writeString(base.resolve("rpc.conf"), "[signet]\nrpcconnect=10.1.2.3:3888\n");
    NodeConf c = conf("signet=1\nincludeconf=rpc.conf\nrpccookiefile=auth/cookie\n");
    NodeAccess a = NodeAccess.resolve(base.resolve("signet"), "signet", c, NO_FLAGS);
    assertEquals(URI.create("http://10.1.2.3:3888/"), a.rpc());
    assertEquals(
        new RpcCredentials.Cookie(base.resolve("signet").resolve("auth/cookie")), a.credentials());
    Files.delete(base.resolve("rpc.conf"));
    assertThrows(NoSuchFileException.class, () -> conf("includeconf=rpc.conf\n"));
  }

  @Test
  void aSpecificRpcbindIsConnectedToAndAWildcardIsNot() throws IOException {
    NodeConf specific = conf("[regtest]\nrpcbind=192.0.2.7:7777\n");
    assertEquals(
        URI.create("http://192.0.2.7:7777/"),
        NodeAccess.resolve(base, "regtest", specific, NO_FLAGS).rpc());
    NodeConf wildcard = conf("[regtest]\nrpcbind=0.0.0.0\nrpcport=5555\n");
    assertEquals(
        URI.create("http://127.0.0.1:5555/"),
        NodeAccess.resolve(base, "regtest", wildcard, NO_FLAGS).rpc());
  }

  @Test
  void theCommandLineWinsOverTheFile() throws IOException {
    NodeConf c =
        conf("[regtest]\nrpcport=19555\nrpcuser=u\nrpcpassword=p\nzmqpubsequence=tcp://a:1\n");
    NodeAccess a =
        NodeAccess.resolve(
            base,
            "regtest",
            c,
            new NodeAccess.Flags("http://127.0.0.1:1234", base.resolve("c"), null, null, "none"));
    assertEquals(URI.create("http://127.0.0.1:1234/"), a.rpc());
    assertEquals(new RpcCredentials.Cookie(base.resolve("c")), a.credentials());
    assertEquals("none", a.zmq());
    assertEquals("--rpc", a.from());
  }

  @Test
  void aUserWithoutAPasswordIsRefusedNotSentAsTheWordNull() throws IOException {
    NodeConf c = NodeConf.read(base.resolve("absent.conf"), base);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                NodeAccess.resolve(
                    base, "regtest", c, new NodeAccess.Flags(null, null, "u", null, null)));
    assertTrue(e.getMessage().contains("--rpc-user u has no password"), e.getMessage());
  }

  @Test
  void noFileMeansCoresDefaults() throws IOException {
    NodeConf c = NodeConf.read(base.resolve("absent.conf"), base);
    assertEquals("main", c.chain());
    assertEquals(
        URI.create("http://127.0.0.1:8332/"), NodeAccess.resolve(base, "main", c, NO_FLAGS).rpc());
  }

  @Test
  void linesCoreRefusesAreRefusedNamingFileAndLine() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> conf("regtest=1\nthis is not a setting\n"));
    assertTrue(e.getMessage().contains("line 2"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> conf("chain=mainnet\n").chain());
    assertThrows(
        IllegalArgumentException.class,
        () -> NodeAccess.resolve(base, "regtest", conf("[regtest]\nrpcport=99999\n"), NO_FLAGS));
  }
}
