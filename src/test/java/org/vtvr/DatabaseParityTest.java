package org.vtvr;

import io.agroal.api.AgroalDataSource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.emptyString;

/**
 * The JDBC and the reactive client reach the database the same way: without TLS, which MariaDB 11.4 and MySQL 8
 * offer by themselves and Connector/J would otherwise take for every JDBC query alone.
 */
@QuarkusTest
@QuarkusTestResource(EmbeddedDatabase.class)
class DatabaseParityTest {

    private static final String CIPHER = "SHOW SESSION STATUS LIKE 'Ssl_cipher'";

    @Inject
    AgroalDataSource jdbc;

    @Inject
    Pool reactive;

    @Test
    void neitherClientUsesTls() throws Exception {
        try (Connection connection = jdbc.getConnection(); Statement statement = connection.createStatement();
                ResultSet cipher = statement.executeQuery(CIPHER)) {
            cipher.next();
            assertThat("JDBC", cipher.getString(2), emptyString());
        }
        Row row = reactive.query(CIPHER).execute().await().atMost(Duration.ofSeconds(10)).iterator().next();
        assertThat("reactive", row.getString(1), emptyString());
    }
}
