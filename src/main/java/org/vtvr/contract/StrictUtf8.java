package org.vtvr.contract;

import jakarta.ws.rs.ConstrainedTo;
import jakarta.ws.rs.RuntimeType;
import jakarta.ws.rs.ext.Provider;
import jakarta.ws.rs.ext.ReaderInterceptor;
import jakarta.ws.rs.ext.ReaderInterceptorContext;
import org.vtvr.error.ProblemType;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Refuses (400) a request body that is not valid UTF-8 before Jackson reads it: Jackson decodes some invalid
 * sequences (the overlong {@code C0 AE} became '.') instead of failing, so the service would store text the client
 * never sent. Bodies are at most quarkus.http.limits.max-body-size (16 KB), so reading one whole costs little.
 * Server only ({@link ConstrainedTo}): as a plain {@code @Provider} the REST client ran it on every delay reply too,
 * a copy and a decode of each that the floor and the socket client do not make (docs/floor.md).
 */
@Provider
@ConstrainedTo(RuntimeType.SERVER)
public class StrictUtf8 implements ReaderInterceptor {

    @Override
    public Object aroundReadFrom(ReaderInterceptorContext context) throws IOException {
        byte[] body = context.getInputStream().readAllBytes();
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(body));
        } catch (CharacterCodingException e) {
            throw ProblemType.MALFORMED_BODY.exception("the request body is not valid UTF-8 (RFC 8259 requires it for JSON)");
        }
        context.setInputStream(new ByteArrayInputStream(body));
        return context.proceed();
    }
}
