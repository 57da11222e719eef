package org.vtvr.vtnative;

import io.agroal.api.AgroalDataSource;
import io.agroal.api.configuration.AgroalConnectionPoolConfiguration.ConnectionValidator;
import io.agroal.api.configuration.supplier.AgroalDataSourceConfigurationSupplier;
import io.agroal.api.security.NamePrincipal;
import io.agroal.api.security.SimplePassword;
import org.vtvr.api.OrderRequest;
import org.vtvr.error.ProblemType;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.Calendar;
import java.util.TimeZone;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The database in plain JDBC: Connector/J through an Agroal pool, the pool and driver the app's virtual mode uses,
 * of the same size and settings ({@code quarkus.datasource.jdbc.*}), sending the statements Hibernate sends there
 * (docs/equal-work.md): one SELECT of an item by id, one autocommitted INSERT of an order.
 */
final class Store implements AutoCloseable {

    static final String SELECT_ITEM = "select i1_0.id,i1_0.name,i1_0.price from items i1_0 where i1_0.id=?";
    static final String INSERT_ORDER = "insert into orders (createdAt,customer,mode,quantity,sku) values (?,?,?,?,?)";

    /** Hibernate binds an Instant as a timestamp in UTC. */
    private static final Calendar UTC = Calendar.getInstance(TimeZone.getTimeZone("UTC"));

    private final AgroalDataSource pool;
    private final int rows;

    Store(Settings settings) throws SQLException {
        rows = settings.bench().rows();
        // Quarkus' defaults for what the app leaves unset: no minimum, validation in the background every 2 minutes,
        // idle connections removed after 5
        pool = AgroalDataSource.from(new AgroalDataSourceConfigurationSupplier().connectionPoolConfiguration(p -> p
                .maxSize(settings.poolSize()).acquisitionTimeout(settings.acquisitionTimeout())
                .connectionValidator(ConnectionValidator.defaultValidator())
                .validationTimeout(Duration.ofMinutes(2)).reapTimeout(Duration.ofMinutes(5))
                .connectionFactoryConfiguration(f -> {
                    f.jdbcUrl(settings.jdbcUrl()).principal(new NamePrincipal(settings.user()))
                            .credential(new SimplePassword(settings.password()));
                    settings.jdbcProperties().forEach(f::jdbcProperty);
                    return f;
                })));
    }

    /** {@code queries} reads one after another, each of a random item; the sum of the prices read. */
    long reads(int queries) {
        long checksum = 0;
        for (int i = 0; i < queries; i++) {
            checksum += itemPrice(ThreadLocalRandom.current().nextLong(1, rows + 1L));
        }
        return checksum;
    }

    private int itemPrice(long id) {
        try (Connection connection = pool.getConnection();
                PreparedStatement select = connection.prepareStatement(SELECT_ITEM)) {
            select.setLong(1, id);
            try (ResultSet row = select.executeQuery()) {
                if (!row.next()) {
                    throw new IllegalStateException("no item " + id);
                }
                return row.getInt("price");
            }
        } catch (SQLException e) {
            throw failed(e);
        }
    }

    /** One order row, autocommitted; its id. */
    long insert(OrderRequest order, String mode) {
        try (Connection connection = pool.getConnection();
                PreparedStatement insert = connection.prepareStatement(INSERT_ORDER, Statement.RETURN_GENERATED_KEYS)) {
            insert.setTimestamp(1, Timestamp.from(Instant.now()), UTC);
            insert.setString(2, order.customer());
            insert.setString(3, mode);
            insert.setInt(4, order.quantity());
            insert.setString(5, order.sku());
            insert.executeUpdate();
            try (ResultSet keys = insert.getGeneratedKeys()) {
                keys.next();
                return keys.getLong(1);
            }
        } catch (SQLException e) {
            throw failed(e);
        }
    }

    /**
     * No answer from the database (SQLState class 08, or none: the pool's wait ran out) is 503, as the app's
     * {@code ProblemMappers} decides; any other failure stays unexpected (500).
     */
    private static RuntimeException failed(SQLException e) {
        if (e.getSQLState() == null || e.getSQLState().startsWith("08")) {
            return ProblemType.DATABASE_UNAVAILABLE.exception(
                    "the database did not answer in time or refused the connection; retry later", e);
        }
        return new IllegalStateException(e);
    }

    @Override
    public void close() {
        pool.close();
    }
}
