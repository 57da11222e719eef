package org.vtvr;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.junit.QuarkusTestProfile;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * Gives the tests a real MySQL-protocol database with no manual step: an explicitly configured URL wins; else Dev
 * Services, which the pom turns on where a Docker socket exists; else an embedded MariaDB started with {@code load/db.sh} on a free
 * port, one per test JVM for the applications of all its test profiles, stopped when that JVM exits. Tests that stop the database run under {@link Only}, which always gets the
 * embedded one, so they run everywhere instead of skipping.
 */
public class EmbeddedDatabase implements QuarkusTestResourceLifecycleManager {

    /** The test profile of tests that stop or stall the database: they always get the embedded one. */
    public static class Only implements QuarkusTestProfile {
    }

    private static final Path ROOT = Path.of("").toAbsolutePath();

    /**
     * The port of the database this JVM started. A system property, not a static field: each test profile's
     * application loads this class anew, and the one database serves them all (starting one costs seconds).
     */
    private static final String PORT = "vtvr.test.embedded-db-port";

    private boolean embeddedOnly;

    @Override
    public void setContext(Context context) {
        embeddedOnly = Only.class.getName().equals(context.testProfile());
    }

    @Override
    public Map<String, String> start() {
        if (!embeddedOnly && (configured("quarkus.datasource.jdbc.url") || configured("quarkus.datasource.reactive.url")
                || Boolean.getBoolean("quarkus.datasource.devservices.enabled"))) {
            return Map.of();
        }
        if (System.getProperty(PORT) == null) {
            System.setProperty(PORT, String.valueOf(freePort()));
            ProcessBuilder stop = command("stop");
            // JDK classes only: the class loader of the application that started the database is closed by then
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    stop.start().waitFor(30, TimeUnit.SECONDS);
                } catch (IOException | InterruptedException e) {
                    System.err.println("embedded database not stopped: " + e);
                }
            }, "embedded-database-stop"));
        }
        // at once when it runs; else (first use, or it died) started on the same port and data
        run("start");
        String hostPort = "127.0.0.1:" + System.getProperty(PORT) + "/bench";
        return Map.of("quarkus.datasource.jdbc.url", "jdbc:mysql://" + hostPort,
                "quarkus.datasource.reactive.url", "mysql://" + hostPort);
    }

    /** Left running for the next application; the JVM's shutdown hook stops it. */
    @Override
    public void stop() {
    }

    /** Stops the embedded database (as an outage would) or starts it again on the same port and data. */
    static void outage(boolean down) {
        run(down ? "stop" : "start");
    }

    /**
     * Freezes the database process (SIGSTOP: connections stay open, nothing answers, as with a hung server or a
     * network black hole) or lets it run again (SIGCONT).
     */
    static void stall(boolean frozen) {
        try {
            String pid = Files.readString(dataDir().resolve("mariadbd.pid")).strip();
            Process kill = new ProcessBuilder("kill", frozen ? "-STOP" : "-CONT", pid).inheritIO().start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill " + (frozen ? "-STOP " : "-CONT ") + pid + " failed");
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot signal the embedded database", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static Path dataDir() {
        return ROOT.resolve("target/mariadb-test-" + System.getProperty(PORT));
    }

    private static ProcessBuilder command(String command) {
        ProcessBuilder builder = new ProcessBuilder("bash", ROOT.resolve("load/db.sh").toString(), command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.INHERIT);
        builder.environment().putAll(Map.of("DB_PORT", System.getProperty(PORT), "DB_DIR", dataDir().toString()));
        return builder;
    }

    private static void run(String command) {
        try {
            Process process = command(command).start();
            if (!process.waitFor(10, TimeUnit.MINUTES) || process.exitValue() != 0) {
                process.destroyForcibly();
                throw new IllegalStateException("load/db.sh " + command + " failed; see its output above");
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run load/db.sh " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static boolean configured(String property) {
        String envName = property.toUpperCase().replaceAll("[^A-Z0-9]", "_");
        return System.getProperty(property) != null || System.getenv(envName) != null;
    }

    /** A free port below the kernel's range for outgoing connections, which could take it before MariaDB binds. */
    static int freePort() {
        Random random = new Random();
        for (int attempt = 0; attempt < 200; attempt++) {
            int port = 20000 + random.nextInt(12768);
            try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                return socket.getLocalPort();
            } catch (IOException taken) {
                // try another
            }
        }
        throw new IllegalStateException("no free port in 20000..32767 on 127.0.0.1");
    }
}
