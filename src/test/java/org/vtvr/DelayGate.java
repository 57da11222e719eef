package org.vtvr;

import io.quarkus.test.junit.QuarkusTestProfile;
import org.eclipse.microprofile.config.ConfigProvider;

import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A port in front of the application's own delay service that a test opens (every byte passed on both ways, so the
 * real service answers) or shuts (nothing listens: connections are refused, as when the service is down). It lets
 * the "service down" and "service slow" cases share one application instead of one start each.
 */
public final class DelayGate {

    /** The application's delay client goes through the gate, with a read timeout below the delays the tests ask for. */
    public static class Profile implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("quarkus.rest-client.delay.url", "http://127.0.0.1:" + port(),
                    "quarkus.rest-client.delay.read-timeout", String.valueOf(READ_TIMEOUT_MS));
        }
    }

    /** {@link Profile} with the socket client. */
    public static class SocketProfile extends Profile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return SocketClient.with(super.getConfigOverrides());
        }
    }

    static final int READ_TIMEOUT_MS = 400;

    /** A system property: each test profile's application loads this class anew, and all of them share the port. */
    private static final String PORT = "vtvr.test.delay-gate-port";

    private static ServerSocket listener;

    private static final Set<Socket> open = ConcurrentHashMap.newKeySet();

    private DelayGate() {
    }

    /** Passes connections on to the application's delay service until {@link #shut()}. */
    static synchronized void open() throws IOException {
        if (listener != null) {
            return;
        }
        int target = ConfigProvider.getConfig().getValue("quarkus.http.test-port", Integer.class);
        ServerSocket socket = new ServerSocket();
        socket.setReuseAddress(true);
        socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port()));
        listener = socket;
        Thread.ofVirtual().name("delay-gate").start(() -> {
            while (!socket.isClosed()) {
                try {
                    Socket client = socket.accept();
                    Thread.ofVirtual().start(() -> pass(client, target));
                } catch (IOException closed) {
                    return;
                }
            }
        });
    }

    /** Refuses new connections and cuts the passed-on ones, so no pooled connection reaches the service either. */
    static synchronized void shut() {
        if (listener != null) {
            close(listener);
            listener = null;
        }
        open.forEach(DelayGate::close);
    }

    private static void pass(Socket client, int target) {
        try (client; Socket service = new Socket(InetAddress.getLoopbackAddress(), target)) {
            open.add(client);
            open.add(service);
            Thread back = Thread.ofVirtual().start(() -> copy(service, client));
            copy(client, service);
            back.join();
        } catch (IOException | InterruptedException gone) {
            // either side closed: the other is closed with it, as a direct connection would be
        } finally {
            open.removeIf(Socket::isClosed);
        }
    }

    /** Copies until either side ends, then closes both: a hang-up reaches the other side at once. */
    private static void copy(Socket from, Socket to) {
        try {
            from.getInputStream().transferTo(to.getOutputStream());
        } catch (IOException ended) {
            // closed by the other direction or by shut()
        } finally {
            close(from);
            close(to);
        }
    }

    private static void close(Closeable socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing is all that is wanted
        }
    }

    private static int port() {
        String port = System.getProperty(PORT);
        if (port == null) {
            port = String.valueOf(EmbeddedDatabase.freePort());
            System.setProperty(PORT, port);
        }
        return Integer.parseInt(port);
    }
}
