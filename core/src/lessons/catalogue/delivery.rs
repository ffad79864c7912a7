//! Delivery guarantees: when to ack, leases, and idempotent consumers.

use super::{about, choose, step, t};
use crate::lessons::{
    Checkpoint, Figure, Focus, Happening, Lesson, LessonStep, Metric, Table, Unit,
};

pub fn ack_after_commit() -> Lesson {
    Lesson {
        name: "ack-after-commit",
        title: t(
            "Ack after commit: a crash before the ack, and the inbox",
            "Ack después del commit: una caída antes del ack, y el inbox",
        ),
        scenario: "ack-after-commit",
        steps: vec![
            broker_redelivers(),
            plain_applies_twice(),
            inbox_applies_once(),
        ],
    }
}

fn broker_redelivers() -> LessonStep {
    step(
        &[Focus::Node("plain"), Focus::Node("with-inbox")],
        t(
            "Each consumer commits its effect, then crashes before its ack reaches the broker. What does the broker do with the message?",
            "Cada consumidor hace commit de su efecto y cae antes de que su ack llegue al broker. ¿Qué hace el broker con el mensaje?",
        ),
        choose(
            1,
            [
                t("Forgets it: the work was done", "Lo olvida: el trabajo se hizo"),
                t(
                    "Delivers it again once the lease runs out",
                    "Lo entrega otra vez cuando vence la reserva (lease)",
                ),
                t("Moves it to the dead-letter queue", "Lo mueve a la cola de mensajes muertos (DLQ)"),
            ],
        ),
        // Both leases run out at 6 s: pause after that instant, with both copies back.
        Checkpoint::At { s: 6.0 },
        Figure::Redeliveries,
        t(
            "The broker never got an ack, so when each 5 s lease ran out, at 6 s, it delivered that subscription's copy again (redeliveries: {figure}, one per subscription). Acking only after the commit loses no work, and it makes a redelivery after a crash between commit and ack normal.",
            "El broker nunca recibió un ack, así que cuando venció cada reserva de 5 s, a los 6 s, volvió a entregar la copia de esa suscripción (reentregas: {figure}, una por suscripción). Hacer ack solo después del commit no pierde trabajo, y vuelve normal una reentrega tras una caída entre el commit y el ack.",
        ),
    )
}

fn plain_applies_twice() -> LessonStep {
    step(
        &[Focus::Node("plain")],
        t(
            "The 'plain' consumer keeps no record of the messages it processed. How many times is the effect applied in its table?",
            "El consumidor 'plain' no guarda registro de los mensajes que procesó. ¿Cuántas veces se aplica el efecto en su tabla?",
        ),
        about(2.0, 0.0, Unit::Count),
        Checkpoint::Next(Happening::DuplicateEffect),
        Figure::EffectsIn("plain"),
        t(
            "Applied {figure} times: the redelivery ran the handler again and nothing stopped it. At-least-once delivery with an effect that is not idempotent gives a duplicate effect.",
            "Aplicado {figure} veces: la reentrega ejecutó el handler de nuevo y nada lo impidió. La entrega al menos una vez con un efecto que no es idempotente produce un efecto duplicado.",
        ),
    )
}

fn inbox_applies_once() -> LessonStep {
    step(
        &[Focus::Node("with-inbox"), Focus::Node("inbox")],
        t(
            "The other subscription's consumer inserts the message id into an inbox table, in the same transaction as its effect. How many times is its effect applied?",
            "El consumidor de la otra suscripción inserta el id del mensaje en una tabla inbox, en la misma transacción que su efecto. ¿Cuántas veces se aplica su efecto?",
        ),
        about(1.0, 0.0, Unit::Count),
        Checkpoint::End,
        Figure::EffectsIn("inbox"),
        t(
            "Applied {figure} time. On the second delivery the inbox insert hit the unique key, the transaction rolled back and the consumer acked without a second effect. The message was delivered twice; the effect happened once.",
            "Aplicado {figure} vez. En la segunda entrega la inserción en el inbox chocó con la clave única, la transacción se deshizo y el consumidor hizo ack sin un segundo efecto. El mensaje se entregó dos veces; el efecto ocurrió una.",
        ),
    )
}

pub fn ack_before_effect() -> Lesson {
    Lesson {
        name: "ack-before-effect",
        title: t(
            "Ack before the effect: at-most-once loses work",
            "Ack antes del efecto: como máximo una vez pierde trabajo",
        ),
        scenario: "ack-before-effect",
        steps: vec![early_ack_loses_the_message(), nothing_to_redeliver()],
    }
}

fn early_ack_loses_the_message() -> LessonStep {
    step(
        &[Focus::Node("C1"), Focus::Node("orders")],
        t(
            "C1 acks each message the moment it is delivered, then does the work. It crashes in the middle of the work. What happens to the message?",
            "C1 hace ack de cada mensaje en cuanto se lo entregan y después hace el trabajo. Cae a mitad del trabajo. ¿Qué pasa con el mensaje?",
        ),
        choose(
            1,
            [
                t("It is delivered again after the lease", "Se entrega otra vez tras la reserva"),
                t("It is lost: the broker already forgot it", "Se pierde: el broker ya lo olvidó"),
                t("It is processed twice", "Se procesa dos veces"),
            ],
        ),
        Checkpoint::Next(Happening::Loss),
        Figure::Lost,
        t(
            "Lost: {figure}. The ack told the broker to forget the message before the work was durable, and the crash erased the only copy. That is at-most-once: no redelivery, and loss is possible.",
            "Perdido: {figure}. El ack le dijo al broker que olvidara el mensaje antes de que el trabajo fuera durable, y la caída borró la única copia. Eso es como máximo una vez: sin reentrega, y la pérdida es posible.",
        ),
    )
}

fn nothing_to_redeliver() -> LessonStep {
    step(
        &[Focus::Node("C1"), Focus::Metric(Metric::Lost)],
        t(
            "C1 restarts a second later. How many times is the message delivered again?",
            "C1 se reinicia un segundo después. ¿Cuántas veces se vuelve a entregar el mensaje?",
        ),
        about(0.0, 0.0, Unit::Count),
        Checkpoint::End,
        Figure::Redeliveries,
        t(
            "Redeliveries: {figure}. Nothing is left to deliver. At-most-once can suit data you can afford to lose, such as some metrics; for an order, ack only after the effect commits.",
            "Reentregas: {figure}. No queda nada que entregar. Como máximo una vez puede servir para datos que se pueden perder, como algunas métricas; para un pedido, haz ack solo después del commit del efecto.",
        ),
    )
}

pub fn visibility_timeout() -> Lesson {
    Lesson {
        name: "visibility-timeout",
        title: t(
            "A visibility timeout shorter than the work, and extending it",
            "Un tiempo de visibilidad más corto que el trabajo, y cómo extenderlo",
        ),
        scenario: "lease-heartbeat",
        steps: vec![
            lease_runs_out_mid_work(),
            report_rebuilt_until_the_end(),
            heartbeat_builds_once(),
        ],
    }
}

fn lease_runs_out_mid_work() -> LessonStep {
    step(
        &[Focus::Node("reports"), Focus::Metric(Metric::InFlight)],
        t(
            "Building a report takes 3 s and the lease on 'reports' is 2.5 s. What happens 2.5 s into the work?",
            "Construir un reporte tarda 3 s y la reserva en 'reports' dura 2,5 s. ¿Qué pasa a los 2,5 s de trabajo?",
        ),
        choose(
            1,
            [
                t("Nothing until the worker acks", "Nada hasta que el worker haga ack"),
                t(
                    "The message is visible again and the second worker gets it while the first still works",
                    "El mensaje vuelve a ser visible y el segundo worker lo recibe mientras el primero sigue trabajando",
                ),
                t("The broker stops the first worker", "El broker detiene al primer worker"),
            ],
        ),
        Checkpoint::Next(Happening::Redelivery),
        Figure::Redeliveries,
        t(
            "The lease ran out while the first worker was busy, and the broker handed the same report to the second worker (redeliveries: {figure}). A visibility timeout coordinates; it is not a lock.",
            "La reserva venció mientras el primer worker estaba ocupado, y el broker entregó el mismo reporte al segundo worker (reentregas: {figure}). Un tiempo de visibilidad coordina; no es un lock.",
        ),
    )
}

fn report_rebuilt_until_the_end() -> LessonStep {
    step(
        &[Focus::Node("R1"), Focus::Node("R2")],
        t(
            "Each worker acks once its 3 s build is done, and every delivery gets the same 2.5 s lease. By the end of the run, at 12 s, how many times has 'reports' built the report?",
            "Cada worker hace ack al terminar su construcción de 3 s, y cada entrega recibe la misma reserva de 2,5 s. Al final de la ejecución, a los 12 s, ¿cuántas veces ha construido 'reports' el reporte?",
        ),
        about(4.0, 0.0, Unit::Count),
        Checkpoint::End,
        Figure::EffectsIn("reports"),
        t(
            "Built {figure} times, and still not settled. A new delivery came every 2.5 s (at 1, 3.5, 6, 8.5 and 11 s) and each build took 3 s, so it ended half a second after its lease had run out: every ack came too late and changed nothing, so the message kept going back in line. A lease shorter than the work does not cause one duplicate but a loop, which ends only when the lease fits the work or a receive limit sends the message to a dead-letter queue. (SQS documents that a delete with an older receipt handle succeeds but might not remove the message: a late ack is no fix there either.)",
            "Construido {figure} veces, y sigue sin cerrarse. Cada 2,5 s llegó una entrega nueva (en los segundos 1; 3,5; 6; 8,5 y 11) y cada construcción tardó 3 s, así que terminó medio segundo después de que venciera su reserva: todos los ack llegaron tarde y no cambiaron nada, así que el mensaje volvió una y otra vez a la fila. Una reserva más corta que el trabajo no provoca un duplicado, sino un bucle, que solo termina cuando la reserva alcanza para el trabajo o cuando un límite de recepciones manda el mensaje a una cola de mensajes muertos. (SQS documenta que un borrado con un receipt handle anterior tiene éxito pero puede no eliminar el mensaje: allí tampoco un ack tardío lo arregla.)",
        ),
    )
}

fn heartbeat_builds_once() -> LessonStep {
    step(
        &[Focus::Node("reports-heartbeat")],
        t(
            "On 'reports-heartbeat' the worker extends its lease while it works. How many reports does it build?",
            "En 'reports-heartbeat' el worker extiende su reserva mientras trabaja. ¿Cuántos reportes construye?",
        ),
        about(1.0, 0.0, Unit::Count),
        Checkpoint::End,
        Figure::EffectsIn("reports-heartbeat"),
        t(
            "Reports built: {figure}. The heartbeat keeps the message hidden for as long as the worker is alive; if the worker dies the heartbeats stop, and the message comes back after one short lease. A very long lease would also avoid the duplicate, but would delay recovery after a crash.",
            "Reportes construidos: {figure}. El heartbeat mantiene el mensaje oculto mientras el worker siga vivo; si el worker muere, los heartbeats se detienen y el mensaje vuelve tras una reserva corta. Una reserva muy larga también evitaría el duplicado, pero retrasaría la recuperación tras una caída.",
        ),
    )
}

pub fn idempotency() -> Lesson {
    Lesson {
        name: "idempotency",
        title: t(
            "Idempotency done wrong: check-then-insert vs a unique key",
            "Idempotencia mal hecha: consultar y luego insertar frente a una clave única",
        ),
        scenario: "inbox-vs-check",
        steps: vec![
            both_checks_pass(),
            inbox_charges_once(),
            checked_charges_more(),
        ],
    }
}

fn both_checks_pass() -> LessonStep {
    step(
        &[Focus::Node("checked"), Focus::Metric(Metric::Duplicates)],
        t(
            "On 'checked' the handler asks 'already processed?' when it starts and writes the mark when it commits. A lease runs out and a second worker gets a payment the first is still charging. What happens?",
            "En 'checked' el handler pregunta «¿ya procesado?» al empezar y escribe la marca al hacer commit. Una reserva vence y un segundo worker recibe un pago que el primero todavía está cobrando. ¿Qué pasa?",
        ),
        choose(
            1,
            [
                t("The second check sees the mark and skips", "La segunda consulta ve la marca y lo omite"),
                t(
                    "Both checks find no mark, and both charge",
                    "Ninguna consulta encuentra la marca, y ambos cobran",
                ),
                t("The broker refuses the second delivery", "El broker rechaza la segunda entrega"),
            ],
        ),
        Checkpoint::Next(Happening::DuplicateEffect),
        Figure::Duplicates,
        t(
            "Duplicate effects: {figure}. Both workers looked before either had written the mark. A check followed by an insert is not atomic, so under concurrency both pass.",
            "Efectos duplicados: {figure}. Ambos workers miraron antes de que ninguno escribiera la marca. Una consulta seguida de una inserción no es atómica, así que con concurrencia ambas pasan.",
        ),
    )
}

fn inbox_charges_once() -> LessonStep {
    step(
        &[Focus::Node("inbox")],
        t(
            "'inbox' receives the same 100 payments, with the same short leases. How many charges does it apply?",
            "'inbox' recibe los mismos 100 pagos, con las mismas reservas cortas. ¿Cuántos cobros aplica?",
        ),
        about(100.0, 0.0, Unit::Count),
        Checkpoint::End,
        Figure::EffectsIn("inbox"),
        t(
            "Charges: {figure}, one per payment. Its handler inserts the payment id under a unique key in the same transaction as the charge: of two concurrent deliveries one wins the insert, the other collides, rolls back and counts as a duplicate.",
            "Cobros: {figure}, uno por pago. Su handler inserta el id del pago con una clave única en la misma transacción que el cobro: de dos entregas concurrentes una gana la inserción, la otra choca, se deshace y cuenta como duplicado.",
        ),
    )
}

fn checked_charges_more() -> LessonStep {
    step(
        &[Focus::Node("checked")],
        t(
            "And 'checked', for the same 100 payments: how many charges?",
            "¿Y 'checked', para los mismos 100 pagos: cuántos cobros?",
        ),
        choose(
            1,
            [
                t("Exactly 100", "Exactamente 100"),
                t("More than 100", "Más de 100"),
                t("Fewer than 100", "Menos de 100"),
            ],
        ),
        Checkpoint::End,
        Figure::EffectsIn("checked"),
        t(
            "Charges: {figure}. One race was enough for a customer to pay twice. Deduplicating messages and making the effect idempotent work together: the mark must commit with the effect, under a unique constraint.",
            "Cobros: {figure}. Bastó una carrera para que un cliente pagara dos veces. Deduplicar mensajes y hacer idempotente el efecto se complementan: la marca debe hacer commit junto con el efecto, bajo una restricción única.",
        ),
    )
}

pub fn inbox_key() -> Lesson {
    Lesson {
        name: "inbox-key",
        title: t(
            "An inbox keyed by the account: what counts as a duplicate",
            "Un inbox con la cuenta como clave: qué cuenta como duplicado",
        ),
        scenario: "inbox-key-scope",
        steps: vec![
            withdrawal_taken_for_a_duplicate(),
            keyed_by_message_applies_each_once(),
            keyed_by_account_loses_the_withdrawals(),
        ],
    }
}

fn withdrawal_taken_for_a_duplicate() -> LessonStep {
    step(
        &[Focus::Node("by-account")],
        t(
            "Both subscriptions insert an inbox row in the effect's transaction, under a unique key. 'by-account' keys the row by the account, the way a correlation id is sometimes used. The deposit of 100 to account 42 has committed there. At 3 s the withdrawal of 30 from account 42, a new message, reaches its handler. What does the inbox do?",
            "Las dos suscripciones insertan una fila de inbox en la transacción del efecto, con una clave única. 'by-account' usa la cuenta como clave, como a veces se usa un id de correlación. El depósito de 100 a la cuenta 42 ya hizo commit allí. A los 3 s el retiro de 30 de la cuenta 42, un mensaje nuevo, llega a su handler. ¿Qué hace el inbox?",
        ),
        choose(
            1,
            [
                t(
                    "It adds a row, and the withdrawal is applied",
                    "Añade una fila, y el retiro se aplica",
                ),
                t(
                    "It takes the withdrawal for a duplicate of the deposit and skips it",
                    "Toma el retiro por un duplicado del depósito y lo omite",
                ),
                t(
                    "It refuses the withdrawal: the balance is too low",
                    "Rechaza el retiro: el saldo no alcanza",
                ),
            ],
        ),
        Checkpoint::Next(Happening::TakenForDuplicate),
        Figure::Balance {
            table: Table::Queue("by-account"),
            key: 42,
        },
        t(
            "Account 42 on 'by-account': {figure}. The insert collided with the row the deposit left for account 42, so the transaction rolled back and the handler treated the withdrawal as already handled: acked, and never applied. A key the deposit and the withdrawal share cannot tell them apart; an account, an order or a trace id names many messages.",
            "La cuenta 42 en 'by-account': {figure}. La inserción chocó con la fila que el depósito dejó para la cuenta 42, así que la transacción se deshizo y el handler dio el retiro por tratado: con ack, y nunca aplicado. Una clave que comparten el depósito y el retiro no puede distinguirlos; una cuenta, un pedido o un id de traza nombran muchos mensajes.",
        ),
    )
}

fn keyed_by_message_applies_each_once() -> LessonStep {
    step(
        &[Focus::Node("by-message")],
        t(
            "Both consumers crashed after committing the deposit, before its ack, so the deposit is delivered again when its lease runs out at 6 s. 'by-message' keys its inbox by the message's source and id. What balance does account 42 end with there (100, then −30 and −20)?",
            "Los dos consumidores cayeron después del commit del depósito, antes de su ack, así que el depósito se entrega otra vez cuando vence su reserva a los 6 s. 'by-message' usa como clave del inbox el origen y el id del mensaje. ¿Con qué saldo termina allí la cuenta 42 (100, luego −30 y −20)?",
        ),
        about(50.0, 0.0, Unit::Dollars),
        Checkpoint::End,
        Figure::Balance {
            table: Table::Queue("by-message"),
            key: 42,
        },
        t(
            "{figure}: each operation once. The redelivered deposit carries the id it was published with, so its insert collided and it was skipped; each withdrawal, a message of its own, got a row of its own. The key says what makes two deliveries the same message: CloudEvents calls two events duplicates when their source and id match.",
            "{figure}: cada operación una vez. El depósito reentregado lleva el id con que se publicó, así que su inserción chocó y se omitió; cada retiro, un mensaje propio, tuvo su propia fila. La clave dice qué hace que dos entregas sean el mismo mensaje: CloudEvents llama duplicados a dos eventos con el mismo origen y el mismo id.",
        ),
    )
}

fn keyed_by_account_loses_the_withdrawals() -> LessonStep {
    step(
        &[Focus::Node("by-account"), Focus::Metric(Metric::Lost)],
        t(
            "And on 'by-account', after the redelivered deposit and the withdrawal of 20 at 4 s: what balance does account 42 end with?",
            "¿Y en 'by-account', tras el depósito reentregado y el retiro de 20 a los 4 s: con qué saldo termina la cuenta 42?",
        ),
        about(100.0, 0.0, Unit::Dollars),
        Checkpoint::End,
        Figure::Balance {
            table: Table::Queue("by-account"),
            key: 42,
        },
        t(
            "{figure}: both withdrawals were taken for duplicates of the deposit. Every message was acked and every job reads completed, yet two operations never happened: the Lost tile counts them and 'No message lost' is broken. Key the inbox by what identifies the message (source and id, or an operation id the client sends with the command), never by the entity it is about.",
            "{figure}: los dos retiros se tomaron por duplicados del depósito. Todos los mensajes recibieron ack y todos los trabajos figuran como completados, y aun así dos operaciones nunca ocurrieron: el contador Perdidos las cuenta y «Ningún mensaje perdido» está roto. Usa como clave del inbox lo que identifica al mensaje (origen e id, o un id de operación que el cliente envía con el comando), nunca la entidad de la que trata.",
        ),
    )
}
