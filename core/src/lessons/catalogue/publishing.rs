//! Publishing reliably and what "exactly once" covers: the outbox, the worked case of
//! order 77, and a transaction inside a log.

use super::{about, choose, step, t};
use crate::lessons::{Checkpoint, Figure, Focus, Happening, Lesson, LessonStep, Unit};

pub fn outbox() -> Lesson {
    Lesson {
        name: "outbox",
        title: t(
            "The transactional outbox, and a dual write without one",
            "El outbox transaccional, y una escritura doble sin él",
        ),
        scenario: "outbox-vs-dual-write",
        steps: vec![relay_publishes_again(), dual_write_loses_the_event()],
    }
}

fn relay_publishes_again() -> LessonStep {
    step(
        &[Focus::Node("order-service"), Focus::Node("inventory")],
        t(
            "order-service's relay publishes an outbox row, gets the broker's confirm, and crashes before marking the row as sent. What does it do after the restart?",
            "El relay de order-service publica una fila del outbox, recibe la confirmación del broker y cae antes de marcar la fila como enviada. ¿Qué hace al reiniciarse?",
        ),
        choose(
            1,
            [
                t("Nothing: the broker already has the event", "Nada: el broker ya tiene el evento"),
                t(
                    "Publishes the same event, with the same id, again",
                    "Publica otra vez el mismo evento, con el mismo id",
                ),
                t("Publishes it under a new id", "Lo publica con un id nuevo"),
            ],
        ),
        Checkpoint::Next(Happening::DuplicateSkipped),
        Figure::DuplicatesSkipped,
        t(
            "The row was still unmarked, so the relay published it again with the same id, and the inventory inbox recognised the copy (duplicates skipped: {figure}). The outbox makes sure the event is never missing; it does not make publishing happen once, so ids must be stable and consumers must deduplicate.",
            "La fila seguía sin marcar, así que el relay la publicó otra vez con el mismo id, y el inbox de inventory reconoció la copia (duplicados omitidos: {figure}). El outbox asegura que el evento nunca falte; no hace que la publicación ocurra una sola vez, así que los ids deben ser estables y los consumidores deben deduplicar.",
        ),
    )
}

fn dual_write_loses_the_event() -> LessonStep {
    step(
        &[Focus::Node("legacy-service")],
        t(
            "legacy-service commits its order, then publishes in a separate step, and crashes between the two. Will inventory ever hear about that order?",
            "legacy-service hace commit de su pedido, luego publica en un paso aparte, y cae entre ambos. ¿Se enterará inventory alguna vez de ese pedido?",
        ),
        choose(
            1,
            [
                t("Yes, when the service restarts", "Sí, cuando el servicio se reinicie"),
                t(
                    "No: the order is confirmed and no event will ever be sent",
                    "No: el pedido está confirmado y ningún evento se enviará",
                ),
                t("Yes, the broker retries it", "Sí, el broker lo reintenta"),
            ],
        ),
        Checkpoint::Next(Happening::NeverPublished),
        Figure::NeverPublished,
        t(
            "Events that will never be published: {figure}. Writing to the database and then to the broker is not one transaction: the first committed, the second never happened. With an outbox the event's row commits with the state, so a crash leaves it waiting to be sent, not lost.",
            "Eventos que nunca se publicarán: {figure}. Escribir en la base y luego en el broker no es una transacción: lo primero hizo commit, lo segundo nunca ocurrió. Con un outbox la fila del evento hace commit junto con el estado, así que una caída la deja esperando a ser enviada, no perdida.",
        ),
    )
}

pub fn confirm_order_77() -> Lesson {
    Lesson {
        name: "confirm-order-77",
        title: t(
            "Confirming order 77, end to end",
            "Confirmar el pedido 77, de punta a punta",
        ),
        scenario: "confirm-order-77",
        steps: vec![
            inventory_skips_the_republished_event(),
            view_ignores_the_late_version(),
            email_repeats(),
            redrive_after_the_fix(),
        ],
    }
}

fn inventory_skips_the_republished_event() -> LessonStep {
    step(
        &[Focus::Node("order-service"), Focus::Node("inventory")],
        t(
            "The relay's confirm for v11 is lost and it crashes right after v12 (evt-91) is confirmed, so both are published again with their ids. What does inventory, whose inbox is keyed by source and id, do with a second copy?",
            "La confirmación de v11 al relay se pierde y el relay cae justo después de que se confirma v12 (evt-91), así que ambos se publican otra vez con sus ids. ¿Qué hace inventory, cuyo inbox tiene como clave origen e id, con una segunda copia?",
        ),
        choose(
            1,
            [
                t("Reserves the stock again", "Reserva el stock otra vez"),
                t("Recognises the id and skips it", "Reconoce el id y la omite"),
                t("Sends it to the dead-letter queue", "La envía a la cola de mensajes muertos"),
            ],
        ),
        Checkpoint::Next(Happening::DuplicateSkipped),
        Figure::DuplicatesSkipped,
        t(
            "Duplicates skipped: {figure}. The copies carry the same id, so the inbox insert collides and the stock is reserved once. Both deliveries end in an ack; only one had an effect.",
            "Duplicados omitidos: {figure}. Las copias llevan el mismo id, así que la inserción en el inbox choca y el stock se reserva una vez. Ambas entregas terminan en ack; solo una tuvo efecto.",
        ),
    )
}

fn view_ignores_the_late_version() -> LessonStep {
    step(
        &[Focus::Node("order-view")],
        t(
            "The republished v11 reaches order-view after v12. order-view ignores versions older than the one it holds. What does it do with the late v11?",
            "El v11 republicado llega a order-view después de v12. order-view ignora las versiones anteriores a la que tiene. ¿Qué hace con el v11 tardío?",
        ),
        choose(
            1,
            [
                t("Applies it: the order goes back to v11", "Lo aplica: el pedido vuelve a v11"),
                t("Ignores it as stale", "Lo ignora por antiguo"),
                t("Waits for v13", "Espera a v13"),
            ],
        ),
        Checkpoint::Next(Happening::StaleIgnored),
        Figure::StaleIgnored,
        t(
            "Stale versions ignored: {figure}. The aggregate's version decides, not the arrival order or a timestamp: the view stays at v12.",
            "Versiones antiguas ignoradas: {figure}. Decide la versión del agregado, no el orden de llegada ni una marca de tiempo: la vista se queda en v12.",
        ),
    )
}

fn email_repeats() -> LessonStep {
    step(
        &[Focus::Node("email")],
        t(
            "The email subscription shares no inbox with inventory and has no idempotency key. What happens to the events that were published twice?",
            "La suscripción de email no comparte inbox con inventory y no tiene clave de idempotencia. ¿Qué pasa con los eventos que se publicaron dos veces?",
        ),
        choose(
            1,
            [
                t(
                    "One email each: inventory already deduplicated them",
                    "Un correo cada uno: inventory ya los deduplicó",
                ),
                t("Two emails each", "Dos correos cada uno"),
                t("No email at all", "Ningún correo"),
            ],
        ),
        Checkpoint::End,
        Figure::EffectsIn("email"),
        t(
            "Emails for 12 events: {figure}. v11 and v12 went out twice. That inventory processed an event once proves nothing about email: each subscription needs its own protection (an idempotency key at the provider, or a workflow that reconciles).",
            "Correos para 12 eventos: {figure}. v11 y v12 salieron dos veces. Que inventory procesara un evento una vez no prueba nada sobre email: cada suscripción necesita su propia protección (una clave de idempotencia en el proveedor, o un workflow que reconcilie).",
        ),
    )
}

fn redrive_after_the_fix() -> LessonStep {
    step(
        &[Focus::Node("catalog-service"), Focus::DeadLetters("inventory")],
        t(
            "catalog-service sent inventory five events with a schema version it did not know; they went to the dead-letter queue. A fix is deployed at 8 s and the queue is redriven slowly from 9 s. How many go back to the dead-letter queue?",
            "catalog-service envió a inventory cinco eventos con una versión de esquema desconocida; fueron a la cola de mensajes muertos. A los 8 s se despliega una corrección y desde los 9 s se reenvían despacio. ¿Cuántos vuelven a la cola de mensajes muertos?",
        ),
        about(0.0, 0.0, Unit::Messages),
        Checkpoint::End,
        Figure::DeadLetteredAgain,
        t(
            "Dead-lettered again: {figure}. The five waited in the dead-letter queue with their reason while the fix was deployed, then succeeded when redriven at one every two seconds, with their original ids so deduplication still works.",
            "Otra vez a la cola de mensajes muertos: {figure}. Los cinco esperaron allí con su causa mientras se desplegaba la corrección, y tuvieron éxito al reenviarse a uno cada dos segundos, con sus ids originales para que la deduplicación siga funcionando.",
        ),
    )
}

pub fn exactly_once() -> Lesson {
    Lesson {
        name: "exactly-once",
        title: t("Exactly once — of what?", "Exactamente una vez… ¿de qué?"),
        scenario: "transactional-pipeline",
        steps: vec![
            transaction_aborts(),
            committed_readers_see_each_once(),
            uncommitted_reader_sees_more(),
            email_is_outside(),
        ],
    }
}

fn transaction_aborts() -> LessonStep {
    step(
        &[Focus::Node("enricher"), Focus::Node("enriched")],
        t(
            "The enricher writes its output records and commits its input offset in one transaction. A member crashes after processing an order, before committing. What happens to the output it wrote?",
            "El enricher escribe sus registros de salida y confirma su offset de entrada en una transacción. Un miembro cae después de procesar un pedido y antes del commit. ¿Qué pasa con la salida que escribió?",
        ),
        choose(
            1,
            [
                t("It stays, visible to every reader", "Se queda, visible para todos los lectores"),
                t(
                    "The transaction aborts: read_committed readers never see it",
                    "La transacción aborta: los lectores read_committed nunca la ven",
                ),
                t("It is deleted from the log", "Se borra del log"),
            ],
        ),
        Checkpoint::Next(Happening::TransactionAborted),
        Figure::EffectsInGroup("billing"),
        t(
            "The transaction aborted; its record stays in the log, marked aborted, and the other member processes the order again. Billing, reading committed records only, has applied {figure} orders so far.",
            "La transacción abortó; su registro queda en el log marcado como abortado, y el otro miembro procesa el pedido de nuevo. Billing, que solo lee registros confirmados, lleva {figure} pedidos aplicados.",
        ),
    )
}

fn committed_readers_see_each_once() -> LessonStep {
    step(
        &[Focus::Node("billing")],
        t(
            "Five orders in all. How many effects does billing (read_committed) apply?",
            "Cinco pedidos en total. ¿Cuántos efectos aplica billing (read_committed)?",
        ),
        about(5.0, 0.0, Unit::Count),
        Checkpoint::End,
        Figure::EffectsInGroup("billing"),
        t(
            "Billing: {figure}, each order once. Inside the log, offsets and outputs committing together make read-process-write exactly once. That guarantee is real, and it has a boundary.",
            "Billing: {figure}, cada pedido una vez. Dentro del log, como el offset y las salidas hacen commit juntos, el ciclo leer-procesar-escribir ocurre exactamente una vez. Esa garantía es real, y tiene una frontera.",
        ),
    )
}

fn uncommitted_reader_sees_more() -> LessonStep {
    step(
        &[Focus::Node("audit")],
        t(
            "Audit reads the same log but also reads uncommitted records. How many effects does it apply for the five orders?",
            "Audit lee el mismo log pero también lee registros no confirmados. ¿Cuántos efectos aplica para los cinco pedidos?",
        ),
        about(6.0, 0.0, Unit::Count),
        Checkpoint::End,
        Figure::EffectsInGroup("audit"),
        t(
            "Audit: {figure}. It also read the aborted record. The guarantee holds only for readers that take part in it (read_committed).",
            "Audit: {figure}. También leyó el registro abortado. La garantía solo vale para los lectores que participan en ella (read_committed).",
        ),
    )
}

fn email_is_outside() -> LessonStep {
    step(
        &[Focus::Node("enricher")],
        t(
            "The enricher also emails each customer, outside the transaction. How many emails go out for the five orders?",
            "El enricher también envía un correo a cada cliente, fuera de la transacción. ¿Cuántos correos salen para los cinco pedidos?",
        ),
        about(6.0, 0.0, Unit::Count),
        Checkpoint::End,
        Figure::EmailsSent,
        t(
            "Emails: {figure}; one customer got two. An aborted transaction can undo records in the log, not an email. 'Exactly once' needs an object: here, exactly once for the log's records, and 'may repeat, guard it with a business key and reconciliation' for the email.",
            "Correos: {figure}; un cliente recibió dos. Una transacción abortada puede deshacer registros del log, no un correo. «Exactamente una vez» necesita un objeto: aquí, exactamente una vez para los registros del log, y «puede repetirse, protégelo con una clave de negocio y reconciliación» para el correo.",
        ),
    )
}
