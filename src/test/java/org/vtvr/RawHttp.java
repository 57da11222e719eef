package org.vtvr;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A minimal HTTP/1.1 client over a plain socket, for requests an HTTP library would refuse to send or would
 * normalize on the way (oversized lines and headers, raw non-ASCII bytes, odd methods and framing).
 */
final class RawHttp {

    /** One answer: status, headers (lower-case names, last value wins), body, and the time it took. */
    record Answer(int status, Map<String, String> headers, String body, long millis) {
    }

    private RawHttp() {
    }

    /** Sends {@code request} as is and reads one response; fails when none is complete within {@code timeoutMs}. */
    static Answer send(int port, byte[] request, int timeoutMs) throws IOException {
        long start = System.nanoTime();
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), timeoutMs);
            socket.setSoTimeout(timeoutMs);
            socket.getOutputStream().write(request);
            socket.getOutputStream().flush();
            boolean head = new String(request, 0, Math.min(5, request.length), StandardCharsets.ISO_8859_1).equals("HEAD ");
            return read(socket.getInputStream(), head, start, timeoutMs);
        } catch (SocketTimeoutException e) {
            throw new AssertionError("no complete answer within " + timeoutMs + " ms", e);
        }
    }

    static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static Answer read(InputStream in, boolean noBody, long start, int timeoutMs) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) >= 0) {
            head.write(b);
            if (endsWithBlankLine(head.toByteArray())) {
                break;
            }
        }
        String text = head.toString(StandardCharsets.ISO_8859_1);
        if (!text.startsWith("HTTP/1.")) {
            throw new AssertionError("no HTTP answer, got '" + text + "'");
        }
        String[] lines = text.split("\r\n");
        int status = Integer.parseInt(lines[0].split(" ")[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                headers.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).trim());
            }
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        if (noBody) {
            // no body follows an answer to HEAD, whatever its Content-Length says
        } else if (headers.containsKey("content-length")) {
            body.write(in.readNBytes(Integer.parseInt(headers.get("content-length"))));
        } else if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            for (int size; (size = Integer.parseInt(line(in).split(";")[0].trim(), 16)) > 0; line(in)) {
                body.write(in.readNBytes(size));
            }
            line(in);
        } else if (status >= 200 && status != 204 && status != 304) {
            body.write(in.readAllBytes());
        }
        long millis = (System.nanoTime() - start) / 1_000_000;
        if (millis > timeoutMs) {
            throw new AssertionError("answer took " + millis + " ms");
        }
        return new Answer(status, headers, body.toString(StandardCharsets.UTF_8), millis);
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int b; (b = in.read()) >= 0 && b != '\n'; ) {
            if (b != '\r') {
                line.append((char) b);
            }
        }
        return line.toString();
    }

    private static boolean endsWithBlankLine(byte[] data) {
        int n = data.length;
        return n >= 4 && data[n - 4] == '\r' && data[n - 3] == '\n' && data[n - 2] == '\r' && data[n - 1] == '\n';
    }
}
