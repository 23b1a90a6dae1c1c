package dev.sluice.spring;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * One keep-alive HTTP/1.1 connection written byte for byte: several requests can go in one write, so the second
 * arrives while the server still runs the first, as a quick client's next request does.
 */
final class KeepAliveConnection implements AutoCloseable {
    private final Socket socket;
    private final int port;
    private final OutputStream out;
    private final InputStream in;

    KeepAliveConnection(int port) throws IOException {
        this.port = port;
        this.socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(30_000); // a connection left unread shows as a timeout here, not as a hang
        this.out = socket.getOutputStream();
        this.in = new BufferedInputStream(socket.getInputStream());
    }

    /** Bodyless requests such as {@code "GET /open"}, all in one write. */
    void send(String... requests) throws IOException {
        StringBuilder all = new StringBuilder();
        for (String request : requests) {
            all.append(request).append(" HTTP/1.1\r\nHost: 127.0.0.1:").append(port)
                    .append("\r\nContent-Length: 0\r\n\r\n");
        }
        out.write(all.toString().getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    /** Reads the next response (its body by Content-Length or chunks) and returns its status. */
    int status() throws IOException {
        String status = line();
        long length = 0;
        boolean chunked = false;
        for (String header = line(); !header.isEmpty(); header = line()) {
            String lower = header.toLowerCase(Locale.ROOT);
            if (lower.startsWith("content-length:")) {
                length = Long.parseLong(lower.substring("content-length:".length()).strip());
            } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                chunked = true;
            }
        }
        if (chunked) {
            for (long size = Long.parseLong(line().strip(), 16); size > 0; size = Long.parseLong(line().strip(), 16)) {
                in.readNBytes((int) size);
                line();
            }
            line();
        } else {
            in.readNBytes((int) length);
        }
        return Integer.parseInt(status.split(" ")[1]);
    }

    private String line() throws IOException {
        StringBuilder line = new StringBuilder();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                throw new EOFException("the connection closed after: " + line);
            }
            if (c != '\r') {
                line.append((char) c);
            }
        }
        return line.toString();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
