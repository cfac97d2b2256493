import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * Cold start floor of the JVM itself (flexlog-bench/README.md#cold-start-and-client-closure): a
 * fresh JVM connects a blocking JDK socket to an echo server, writes 10 bytes, reads them back,
 * prints the wall-clock time of that moment in ms and exits.
 */
public final class SocketFloor {
  public static void main(String[] args) throws Exception {
    try (Socket socket = new Socket(args[0], Integer.parseInt(args[1]))) {
      socket.getOutputStream().write("cold start".getBytes(StandardCharsets.UTF_8));
      InputStream in = socket.getInputStream();
      byte[] buffer = new byte[64];
      int bytes = in.read(buffer);
      long echoedMs = System.currentTimeMillis();
      System.out.println(echoedMs + " bytes=" + bytes);
    }
  }
}
