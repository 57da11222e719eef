package org.vtvr.data;

import io.quarkus.hibernate.orm.panache.Panache;
import io.quarkus.logging.Log;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.transaction.Transactional;
import org.vtvr.config.BenchConfig;

/** Creates the missing rows of the items table at start-up (the schema itself comes from Hibernate). */
@ApplicationScoped
public class Seeder {

    private static final int BATCH = 1000;

    @Transactional
    void seed(@Observes StartupEvent event, BenchConfig config) {
        if (!config.seed()) {
            return;
        }
        var em = Panache.getEntityManager();
        long present = em.createQuery("select count(i) from Item i", Long.class).getSingleResult();
        if (present >= config.rows()) {
            return;
        }
        // INSERT IGNORE keeps rows that exist and lets two instances seed at once (MySQL and MariaDB both have it)
        for (int from = 1; from <= config.rows(); from += BATCH) {
            StringBuilder sql = new StringBuilder("INSERT IGNORE INTO items (id, name, price) VALUES ");
            for (int id = from; id < from + BATCH && id <= config.rows(); id++) {
                sql.append(id == from ? "" : ",").append('(').append(id).append(",'item-").append(id).append("',")
                        .append(id % 1000).append(')');
            }
            em.createNativeQuery(sql.toString()).executeUpdate();
        }
        Log.infof("seeded items table: %d rows were present, %d wanted", present, config.rows());
    }
}
