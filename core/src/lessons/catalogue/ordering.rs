//! Partitions and keys: account 42, parallel handlers, idle members and a hot key.

use super::{about, choose, step, t};
use crate::lessons::{Checkpoint, Figure, Focus, Happening, Lesson, LessonStep, Table, Unit};

pub fn partitions_and_keys() -> Lesson {
    Lesson {
        name: "partitions-and-keys",
        title: t(
            "Partitions and keys: account 42, idle members and a hot key",
            "Particiones y claves: la cuenta 42, miembros ociosos y una clave caliente",
        ),
        scenario: "partitions-and-keys",
        steps: vec![
            parallel_handlers_reorder(),
            queue_balance_ends_wrong(),
            log_keeps_the_key_in_order(),
            members_beyond_partitions_idle(),
            hot_key_loads_one_partition(),
        ],
    }
}

fn parallel_handlers_reorder() -> LessonStep {
    step(
        &[Focus::Node("teller"), Focus::Node("ledger")],
        t(
            "Account 42 starts at $0 and allows no overdraft. Through the queue it gets deposit $100, then withdraw $50; the ledger consumer runs two handlers in parallel. What can happen?",
            "La cuenta 42 empieza en $0 y no admite descubierto. Por la cola recibe un depósito de $100 y luego un retiro de $50; el consumidor ledger ejecuta dos handlers en paralelo. ¿Qué puede pasar?",
        ),
        choose(
            1,
            [
                t(
                    "They always apply in the order they were sent",
                    "Siempre se aplican en el orden en que se enviaron",
                ),
                t(
                    "The withdrawal can finish first and be refused for lack of funds",
                    "El retiro puede terminar primero y rechazarse por falta de fondos",
                ),
                t("Both are refused", "Se rechazan los dos"),
            ],
        ),
        Checkpoint::Next(Happening::EffectRefused),
        Figure::EffectsRefused,
        t(
            "Refused operations: {figure}. The broker delivered in order, but the two handlers finished out of order and the withdrawal met a balance of $0.",
            "Operaciones rechazadas: {figure}. El broker entregó en orden, pero los dos handlers terminaron desordenados y el retiro encontró un saldo de $0.",
        ),
    )
}

fn queue_balance_ends_wrong() -> LessonStep {
    step(
        &[Focus::Node("ledger")],
        t(
            "What balance does the queue's ledger end with for account 42?",
            "¿Con qué saldo termina el ledger de la cola para la cuenta 42?",
        ),
        about(100.0, 0.0, Unit::Dollars),
        Checkpoint::End,
        Figure::Balance {
            table: Table::Queue("ledger"),
            key: 42,
        },
        t(
            "{figure} instead of $50: the refused withdrawal is gone for good. Keeping a key's order is the handler's job too, e.g. one message at a time per key, or a version check that waits for the missing one.",
            "{figure} en lugar de $50: el retiro rechazado se perdió para siempre. Conservar el orden de una clave también es trabajo del handler, por ejemplo un mensaje a la vez por clave, o una comprobación de versión que espere a la que falta.",
        ),
    )
}

fn log_keeps_the_key_in_order() -> LessonStep {
    step(
        &[Focus::Node("teller-log"), Focus::Node("accounts"), Focus::Node("ledger-group")],
        t(
            "The same two operations go to a log keyed by account: both land in one partition, and its owner processes them one at a time. What balance does the group's ledger end with?",
            "Las mismas dos operaciones van a un log con el número de cuenta como clave: caen en una misma partición, y su dueño las procesa una a una. ¿Con qué saldo termina el ledger del grupo?",
        ),
        about(50.0, 0.0, Unit::Dollars),
        Checkpoint::End,
        Figure::Balance {
            table: Table::Group("ledger-group"),
            key: 42,
        },
        t(
            "{figure}: same key, same partition, same order. A log keeps order within a partition only; a key that spreads one account's records over partitions (the message id, say) would lose it.",
            "{figure}: misma clave, misma partición, mismo orden. Un log conserva el orden solo dentro de una partición; una clave que reparta los registros de una cuenta entre particiones (el id del mensaje, por ejemplo) lo perdería.",
        ),
    )
}

fn members_beyond_partitions_idle() -> LessonStep {
    step(
        &[Focus::Node("ledger-group"), Focus::Node("accounts")],
        t(
            "The log has 3 partitions and the group 5 members. How many members have nothing to read?",
            "El log tiene 3 particiones y el grupo 5 miembros. ¿Cuántos miembros no tienen nada que leer?",
        ),
        about(2.0, 0.0, Unit::Members),
        Checkpoint::End,
        Figure::IdleMembers("ledger-group"),
        t(
            "Idle: {figure}. Within a group a partition has one owner at a time, so members beyond the number of partitions only wait as spares. The partition count caps the group's parallelism.",
            "Ociosos: {figure}. Dentro de un grupo cada partición tiene un solo dueño a la vez, así que los miembros que superan el número de particiones solo esperan como reserva. El número de particiones limita el paralelismo del grupo.",
        ),
    )
}

fn hot_key_loads_one_partition() -> LessonStep {
    step(
        &[Focus::Node("traffic"), Focus::Node("accounts")],
        t(
            "60% of the other accounts' traffic is for a single account (a hot key); the rest spreads evenly over 16 accounts, the hot one among them, and 4 of those 16 keys hash to the hot key's partition. What share of the log's records lands in its busiest partition?",
            "El 60 % del tráfico de las demás cuentas es de una sola cuenta (una clave caliente); el resto se reparte por igual entre 16 cuentas, la caliente entre ellas, y 4 de esas 16 claves caen por su hash en la partición de la clave caliente. ¿Qué parte de los registros del log cae en su partición más cargada?",
        ),
        about(70.0, 8.0, Unit::Percent),
        Checkpoint::End,
        Figure::BusiestPartitionShare("ledger-group"),
        t(
            "{figure} of the records: all of the hot key's, plus the records of every key that hashes to its partition (expected 60 % + 40 % × 4/16 = 70 %; this run's random draws put a little more there). That partition's owner does most of the work while the others idle; keeping one key in order and spreading its load pull in opposite directions.",
            "El {figure} de los registros: todos los de la clave caliente, más los de cada clave que cae por su hash en su partición (se espera 60 % + 40 % × 4/16 = 70 %; los sorteos al azar de esta ejecución pusieron allí algo más). El dueño de esa partición hace casi todo el trabajo mientras los demás esperan; mantener en orden una clave y repartir su carga tiran en direcciones opuestas.",
        ),
    )
}
