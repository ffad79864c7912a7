//! The catalogue of built-in examples: one row each, with its topic, its title in English
//! and Spanish, and its description in Spanish (the English one is the scenario file's).

use super::{Example, Topic};
use crate::lang::Text;

/// Shorthand for one row of [`EXAMPLES`].
macro_rules! example {
    ($name:literal, $topic:ident, $title_en:literal, $title_es:literal, $description_es:literal) => {
        Example {
            name: $name,
            topic: Topic::$topic,
            json: include_str!(concat!("../../scenarios/", $name, ".json")),
            title: Text::new($title_en, $title_es),
            description_es: $description_es,
        }
    };
}

/// Every built-in example (the CLI lists them in this order).
pub const EXAMPLES: &[Example] = &[
    example!(
        "mm1",
        Load,
        "One consumer at 90% load (M/M/1)",
        "Un consumidor al 90 % de carga (M/M/1)",
        "M/M/1 al 90 % de carga: llegadas de Poisson a 0,9 por segundo y un consumidor con servicio exponencial de media 1 s. La teoría de colas predice una espera media de 9 s y 8,1 mensajes esperando en promedio."
    ),
    example!(
        "mm4",
        Load,
        "Four consumers share 90% load (M/M/4)",
        "Cuatro consumidores se reparten un 90 % de carga (M/M/4)",
        "M/M/4 al 90 % de carga: llegadas de Poisson a 3,6 por segundo repartidas entre cuatro consumidores que compiten, y cada uno atiende un mensaje a la vez en 1 s de media. Erlang C predice una espera media de unos 1,97 s y unos 7,09 mensajes esperando."
    ),
    example!(
        "prefetch-fairness",
        Load,
        "Prefetch: a slow consumer hoards the queue",
        "Prefetch: un consumidor lento acapara la cola",
        "Cada pedido llega a dos colas atendidas igual: un consumidor lento (2 s por pedido) y dos rápidos (0,1 s cada uno). En 'greedy' el lento puede tener 100 pedidos sin ack (prefetch 100); en 'fair', solo 1. En 'greedy' la cola parece vacía mientras los pedidos se amontonan en el búfer del consumidor lento y los rápidos no tienen nada que hacer; 'fair' termina unos 2 s después de que llegue el último pedido. A los 40 s greedy-slow cae: todo lo que retenía vuelve a la fila de golpe, y al reiniciarse un segundo después vuelve a llevarse la mayor parte."
    ),
    example!(
        "burst",
        Load,
        "A burst larger than capacity",
        "Una ráfaga mayor que la capacidad",
        "Una ráfaga mayor que la capacidad: 3.000 mensajes por segundo durante 60 s y luego 1.000 por segundo hasta los 180 s, frente a consumidores que entre todos terminan 2.000 por segundo. El acumulado (el trabajo en espera) sube unos 1.000 por segundo hasta cerca de 60.000, después baja unos 1.000 por segundo y vuelve a quedar vacío cerca de los 120 s."
    ),
    example!(
        "day-at-a-million",
        Load,
        "A day at a million messages per second (aggregated)",
        "Un día a un millón de mensajes por segundo (agregado)",
        "Un día de hasta un millón de mensajes por segundo, calculado como flujos: 600.000 por segundo, un pico de 1.000.000 por segundo de 8:00 a 12:00 y de nuevo 600.000, frente a consumidores que entre todos terminan 800.000 por segundo. El acumulado sube 200.000 por segundo hasta 2.880 millones al mediodía, luego baja 200.000 por segundo y vuelve a quedar vacío a las 16:00. Son demasiados mensajes para seguirlos uno a uno, así que la ejecución es agregada."
    ),
    example!(
        "crash-after-commit",
        Delivery,
        "Crash between commit and ack: a duplicate",
        "Caída entre el commit y el ack: un duplicado",
        "Un solo mensaje. El consumidor hace commit de su efecto y cae antes de que su ack llegue al broker. Cuando vence la reserva (lease), el broker entrega el mensaje otra vez y, sin idempotencia, el efecto se aplica por segunda vez."
    ),
    example!(
        "ack-before-effect",
        Delivery,
        "Ack on delivery: a crash loses the message",
        "Ack al recibir: una caída pierde el mensaje",
        "Un solo mensaje, con ack en el momento en que se entrega (como máximo una vez). El consumidor cae mientras lo procesa: el broker ya olvidó el mensaje, así que se pierde y se cuenta como perdido."
    ),
    example!(
        "short-lease",
        Delivery,
        "A lease shorter than the work",
        "Una reserva (lease) más corta que el trabajo",
        "La reserva (lease, 2,5 s) es más corta que el trabajo (3 s). El mensaje vuelve a ser visible mientras el primer consumidor sigue trabajando, así que un segundo consumidor lo recibe a la vez; los dos aplican el efecto y ningún ack llega a tiempo para contar."
    ),
    example!(
        "fanout-subscriptions",
        Load,
        "One publish, three subscriptions (fan-out)",
        "Una publicación, tres suscripciones (fan-out)",
        "Una publicación, tres suscripciones. Un exchange de tipo topic enruta cada evento de pedido a billing (orders.*), shipping (solo orders.created) y audit (#). Cada suscripción lleva su propio acumulado y su propio avance: el consumidor de shipping cae a los 5 s y no vuelve, así que solo crece su backlog. Una publicación que no coincide con ningún binding vuelve al productor porque es mandatory."
    ),
    example!(
        "lost-confirm",
        Delivery,
        "A lost publish confirm stores the message twice",
        "Se pierde la confirmación: el mensaje se guarda dos veces",
        "El broker guarda el pedido #0, pero su confirmación se pierde por el camino de vuelta. El productor no puede saber si la publicación funcionó, así que al vencer su tiempo de espera publica de nuevo con el mismo id: el broker guarda una segunda copia y el consumidor aplica el efecto dos veces. Con publish.idempotent en true, el broker reconoce el reintento (id de productor + secuencia) y lo guarda una sola vez."
    ),
    example!(
        "outbox-relay-crash",
        Publishing,
        "The outbox relay crashes after publishing",
        "El relay de la bandeja de salida (outbox) cae tras publicar",
        "El servicio de pedidos escribe su estado y una fila en la bandeja de salida (outbox) en una sola transacción (la solicitud queda aceptada: 202 + id de trabajo). Su relay publica la fila, recibe la confirmación del broker y cae antes de marcarla como enviada. Tras el reinicio publica otra vez el mismo id de evento. Llegan dos copias a la cola: el consumidor de inventario, con una bandeja de entrada (inbox) indexada por (origen, id de evento) en la misma transacción que su efecto, reserva el stock una sola vez."
    ),
    example!(
        "dual-write-crash",
        Publishing,
        "Dual write without an outbox: an event never sent",
        "Doble escritura sin outbox: un evento que nunca se envía",
        "Sin bandeja de salida (outbox), el servicio hace commit de su estado y luego publica en un paso aparte. En la segunda solicitud cae entre ambos pasos: el pedido queda confirmado en su base de datos, pero ningún evento se lo contará nunca a los demás servicios. El simulador lo cuenta como nunca publicado."
    ),
    example!(
        "check-then-insert-race",
        Delivery,
        "A racy duplicate check, and the inbox that fixes it",
        "Una carrera al detectar duplicados, y el inbox que la evita",
        "El handler pregunta «¿ya se procesó?» al empezar y registra la marca al hacer commit. Con una reserva (lease) más corta de lo que tardan algunos handlers, un mensaje se reentrega a un segundo worker mientras el primero sigue trabajando: las dos comprobaciones pasan y los dos efectos ocurren. Cambia la idempotencia a inbox y la clave única detiene el segundo."
    ),
    example!(
        "account-42",
        Ordering,
        "Withdrawal before deposit on a queue",
        "Retiro antes que depósito en una cola",
        "La cuenta 42 empieza en 0 y no admite descubierto. El servicio publica un depósito de 100 (versión 1) y luego un retiro de 50 (versión 2), ambos con la cuenta como clave. Un consumidor con dos handlers en paralelo puede terminar primero el retiro: se rechaza y el saldo acaba en 100 en vez de 50. Con ordering wait_for_gap, la versión 2 espera a la versión 1 y el saldo acaba en 50."
    ),
    example!(
        "account-42-log",
        Ordering,
        "Withdrawal before deposit on a partitioned log",
        "Retiro antes que depósito en un log particionado",
        "La cuenta 42 en un log particionado. Empieza en 0 y no admite descubierto; el servicio añade un depósito de 100 (versión 1) y luego un retiro de 50 (versión 2), justo después de los depósitos de otras dos cuentas. El log tiene 3 particiones y el grupo ledger 3 miembros, uno por partición, a 1 s por registro. Con la cuenta como clave, las dos operaciones de la cuenta 42 caen en la misma partición y se aplican en orden: el saldo acaba en 50. Cambia el partition_by del log a message_id (una clave que reparte la carga) y el depósito espera detrás del registro de otra cuenta en una partición mientras el retiro se ejecuta enseguida en otra: se rechaza y el saldo acaba en 100. El orden de un log es por partición."
    ),
    example!(
        "ordering-account",
        Ordering,
        "Parallel handlers reorder an account",
        "Handlers en paralelo desordenan una cuenta",
        "La cuenta 7 recibe un depósito de 100, un retiro de 60, un depósito de 20 y un retiro de 50 (versiones 1 a 4, separadas por 10 ms), así que su saldo debería acabar en 10; la cuenta 8 recibe dos depósitos unos segundos después. El ledger ejecuta cuatro handlers en paralelo y aplica lo que termine primero: un retiro puede llegar antes que el depósito que necesita y rechazarse, y el saldo acaba mal. Observa cómo se rompe el invariante de orden por clave en la primera versión aplicada después de otra más nueva. Con el ordering del consumidor en wait_for_gap o reconcile, las versiones se aplican en orden y el saldo acaba en 10; ignore_stale mantiene el orden saltando las versiones viejas, y pierde lo que traían."
    ),
    example!(
        "retries-dlq-redrive",
        Failures,
        "Retries, a dead-letter queue and a redrive",
        "Reintentos, una cola de mensajes muertos y un reenvío",
        "Los pagos fallan mientras una dependencia está caída (de los 10 s a los 40 s), algunos fallan de forma transitoria y uno de cada cincuenta es venenoso. Los intentos fallidos se reintentan con espera exponencial y jitter completo, cuatro intentos en total (contando el primero); los venenosos van directo a la cola de mensajes muertos (DLQ), y el resto cuando se agotan los intentos. A los 60 s un operador reenvía la cola de mensajes muertos a 5 mensajes por segundo: las víctimas de la caída ahora se procesan con éxito, y los venenosos fallan otra vez y se cuentan de nuevo como mensajes muertos. Los ids nunca cambian, así que el inbox sigue deteniendo los duplicados."
    ),
    example!(
        "backpressure",
        Load,
        "A bounded queue under overload (backpressure)",
        "Una cola acotada bajo sobrecarga (contrapresión)",
        "Llegan 30 mensajes por segundo frente a una capacidad de 20 por segundo, a una cola limitada a 100 mensajes. Con overflow 'reject', el broker rechaza lo que no cabe; este productor publica sin confirmaciones, así que nadie se lo hace saber y cada mensaje rechazado se pierde antes de guardarse (con confirmaciones recibiría un nack); con 'drop_oldest', se descartan los mensajes que más tiempo llevan esperando; con 'throttle', se frena al productor y el acumulado pasa al productor. Además, los mensajes expiran tras 10 s de espera."
    ),
    example!(
        "broker-crash",
        Failures,
        "The broker crashes and comes back",
        "El broker cae y vuelve",
        "El broker cae a los 10 s y vuelve a los 15 s. La cola durable conserva sus mensajes persistentes (las entregas en curso vuelven a la espera); la cola transitoria pierde todo lo que tenía, que se cuenta como perdido. Los productores con confirmaciones notan las publicaciones fallidas y las reintentan cuando el broker vuelve."
    ),
    example!(
        "log-consumer-groups",
        Logs,
        "Two consumer groups on a partitioned log",
        "Dos grupos de consumidores sobre un log particionado",
        "Un log particionado de eventos de cuentas: 4 particiones y el id de cuenta como clave, así que los eventos de cada cuenta se mantienen en orden en una partición; la cuenta 0 es una clave caliente y hace que su partición se retrase. Dos grupos de consumidores leen los mismos registros de forma independiente: leer no borra nada. Un tercer miembro de ledger se une a los 20 s y el grupo hace un rebalanceo; un quinto y un sexto quedarían ociosos, sin partición. A los 40 s el grupo analytics rebobina a los offsets más antiguos y reproduce el log."
    ),
    example!(
        "log-commit-modes",
        Logs,
        "Commit the offset before or after the work",
        "Commit del offset antes o después del trabajo",
        "El momento en que un miembro del grupo hace commit de su offset decide lo que cuesta una caída. Con commit antes de procesar, una caída entre el commit y el trabajo salta ese registro para siempre (como máximo una vez, contado como saltado). Con commit después de procesar, una caída entre el trabajo y el commit hace que el siguiente dueño lea otra vez el registro (al menos una vez: aquí un efecto duplicado, porque el grupo no tiene inbox)."
    ),
    example!(
        "member-session-timeout",
        Logs,
        "A crashed member's partitions wait for its session",
        "Las particiones de un miembro caído esperan a su sesión",
        "Tres grupos de consumidores leen el mismo log de pagos, y a los 10 s cae el segundo miembro de cada uno sin salir de su grupo. audit no tiene tiempo de sesión: su miembro sale enseguida y, tras un rebalanceo de 1 s, el otro miembro lee sus particiones. billing espera 20 s (el session.timeout.ms de Kafka, 45 s por defecto): nadie lee las particiones del miembro caído, su retraso (lag) crece, y solo cuando expira la sesión, a los 30 s, el grupo las reparte. ledger tiene el mismo tiempo, pero su miembro vuelve a los 15 s: retoma sus particiones desde sus offsets con commit, sin rebalanceo, como hace un miembro estático."
    ),
    example!(
        "member-poll-interval",
        Logs,
        "A record slower than the poll interval runs again and again",
        "Un registro más lento que el intervalo de poll se repite",
        "Tres grupos de consumidores leen el mismo log de facturas, y cada uno tarda 8 s con un registro. exports no tiene intervalo de poll: por mucho que tarde un registro, su miembro conserva la partición. mailer permite 5 s entre polls (el max.poll.interval.ms de Kafka, 300 s por defecto): cada registro lo supera, así que su miembro sale del grupo, el registro pasa al otro miembro, que lo vuelve a leer desde el último commit, y el primero, al terminar, no puede hacer commit y vuelve a unirse. Los miembros salen por turnos, los mismos registros se procesan una y otra vez, y el grupo nunca hace commit. archive permite 10 s: cada registro termina a tiempo y nada se mueve."
    ),
    example!(
        "log-retention",
        Logs,
        "Retention deletes records a slow group never read",
        "La retención borra registros que un grupo lento nunca leyó",
        "En este log los registros viven 5 segundos, se lean o no. El grupo reporting es demasiado lento (un registro por segundo frente a cinco por segundo que llegan): la retención elimina registros antes de que los lea, y el simulador los cuenta como saltados: nunca leídos, perdidos para ese grupo. Los offsets siguen creciendo; el inicio del log avanza detrás de ellos."
    ),
    example!(
        "transactional-pipeline",
        Logs,
        "Read-process-write in one transaction",
        "Leer, procesar y escribir en una sola transacción",
        "Leer, procesar y escribir dentro del log. El enricher lee pedidos, escribe un registro enriquecido y envía un correo de confirmación. Sus registros de salida y su offset de entrada se confirman en una sola transacción. El miembro 1 cae después de procesar el pedido #2 y antes del commit: la transacción aborta y el otro miembro vuelve a leer el pedido. Billing lee el log enriquecido con read_committed y ve cada pedido exactamente una vez; audit lee registros sin confirmar y también ve el registro abortado. El correo queda fuera de la transacción: el cliente del pedido #2 lo recibe dos veces."
    ),
    example!(
        "batch-atomicity",
        Failures,
        "A poison message in an atomic batch",
        "Un mensaje venenoso en un lote atómico",
        "Un consumidor toma los mensajes de cinco en cinco. Empieza a los 2 s, cuando esperan cinco mensajes, y los toma como un solo lote; el tercero es venenoso. Tratando cada mensaje por separado, los otros cuatro hacen commit y solo el venenoso va a la cola de mensajes muertos (DLQ). Con un lote atómico, el venenoso deshace el lote entero: los cuatro mensajes buenos fallan con él y se reintentan tras una espera."
    ),
    example!(
        "confirm-order-77",
        Publishing,
        "Confirming order 77, end to end",
        "Confirmar el pedido 77, de punta a punta",
        "El caso completo. POST /orders/77/confirm lleva el id de operación op-77-confirm; el servicio de pedidos hace commit del pedido y de una fila de la bandeja de salida (outbox) en una sola transacción y responde 202 con un id de trabajo. Los eventos del pedido 77 son las versiones 1 a 12 de la clave 77: v11 (#10) y la confirmación evt-91 v12 (#11). La confirmación de v11 al relay se pierde, y el relay cae justo después de que se confirma v12, antes de marcar su fila; tras el reinicio publica las dos filas otra vez con sus ids. El exchange orders reparte cada evento a tres suscripciones: inventory (un inbox indexado por origen e id) aplica cada uno una vez; order-view (ignore_stale, sin inbox) ve llegar v11 después de v12 y lo ignora; email (sin clave de idempotencia) envía la confirmación dos veces. Mientras tanto, el servicio de catálogo envía a inventory cinco eventos con una versión de esquema que su consumidor no conoce: van directo a la cola de mensajes muertos (DLQ). A los 8 s se despliega una corrección; a los 9 s un operador reenvía la cola de mensajes muertos despacio, un mensaje cada dos segundos, y los cinco se procesan con éxito."
    ),
    example!(
        "queue-vs-topic",
        Delivery,
        "Competing consumers vs independent subscriptions",
        "Consumidores en competencia o suscripciones independientes",
        "Veinte eventos de pedido van a un exchange fanout con dos suscripciones. Billing es una cola de trabajo con dos consumidores que compiten: se reparten sus mensajes y cada uno se atiende una vez. Shipping es una segunda suscripción, independiente, con un consumidor que cae a los 5 s y no vuelve: su acumulado crece mientras billing va al día. Cada suscripción lleva su propio avance."
    ),
    example!(
        "ack-after-commit",
        Delivery,
        "Ack after commit: a redelivery, and the inbox",
        "Ack después del commit: una reentrega y el inbox",
        "Un evento de pedido llega a dos suscripciones. Los dos consumidores hacen ack solo después del commit de su efecto, y los dos caen justo después del commit, antes del ack. Cuando vencen las reservas (5 s), el broker entrega el evento otra vez a cada uno. El consumidor simple aplica el efecto por segunda vez; el que tiene un inbox (el id del mensaje insertado en la misma transacción que el efecto) reconoce el duplicado y no aplica nada."
    ),
    example!(
        "lease-heartbeat",
        Delivery,
        "A lease shorter than the work, and a heartbeat",
        "Una reserva más corta que el trabajo, y un heartbeat",
        "Construir un reporte tarda 3 s y la reserva (lease) es de 2,5 s. El evento llega a dos suscripciones, cada una con dos consumidores. En 'reports' la reserva vence mientras el primer consumidor sigue trabajando, así que el segundo recibe el mismo mensaje a la vez. Cada construcción dura más que su reserva, así que ningún ack llega a contar y el reporte vuelve una y otra vez: a los 12 s ya se ha construido cuatro veces. En 'reports-heartbeat' el consumidor extiende su reserva mientras trabaja (un heartbeat de visibilidad): una entrega, un reporte."
    ),
    example!(
        "inbox-vs-check",
        Delivery,
        "Check-then-insert vs a unique inbox key",
        "Comprobar e insertar frente a una clave única en el inbox",
        "Los pagos llegan a dos suscripciones cuyas reservas (1,5 s) son más cortas de lo que tardan algunos handlers, así que a veces un pago pasa a un segundo worker mientras el primero sigue trabajando. 'checked' pregunta «¿ya se procesó?» al empezar y registra la marca en el commit: los dos workers pasan la comprobación y los dos cobran. 'inbox' inserta el id del pago en una tabla con clave única en la misma transacción que el cobro: la segunda inserción choca y se deshace."
    ),
    example!(
        "inbox-key-scope",
        Delivery,
        "An inbox keyed by the account, not the message",
        "Un inbox con clave de cuenta, no de mensaje",
        "Los pagos de un banco llegan a dos suscripciones, cada una con un inbox en la transacción del efecto. 'by-message' usa como clave del inbox el mensaje (su origen y su id); 'by-account' usa la cuenta, como si un id de entidad o de correlación sirviera para reconocer un duplicado. La cuenta 42 recibe un depósito de 100 y luego retiros de 30 y de 20; la cuenta 7, un depósito de 50. Los dos consumidores caen después del commit del depósito, antes del ack, así que vuelve cuando vence su reserva (5 s). Los dos inbox omiten esa reentrega, que sí es un duplicado. 'by-account' omite también los dos retiros: ya hay una fila para la cuenta 42, así que cada operación posterior sobre ella se toma por duplicada, recibe ack y nunca se hace. La cuenta 42 termina en 50 en 'by-message' y en 100 en 'by-account'."
    ),
    example!(
        "outbox-vs-dual-write",
        Publishing,
        "Outbox vs dual write, side by side",
        "Outbox frente a doble escritura, lado a lado",
        "Dos servicios confirman pedidos. order-service escribe su estado y una fila de la bandeja de salida (outbox) en una sola transacción; su relay publica la fila, recibe la confirmación y cae antes de marcarla, así que tras el reinicio publica otra vez el mismo id de evento y el inbox de inventory salta la segunda copia. legacy-service hace commit de su estado, luego publica en un paso aparte, y cae entre ambos: su pedido queda confirmado, pero nunca se enviará ningún evento."
    ),
    example!(
        "partitions-and-keys",
        Ordering,
        "Keys, partitions, idle members and a hot key",
        "Claves, particiones, miembros ociosos y una clave caliente",
        "La cuenta 42 empieza en 0 y no admite descubierto; el banco pide un depósito de 100 y luego un retiro de 50, dos veces: una a través de una cola cuyo consumidor ejecuta dos handlers en paralelo, y otra a través de un log con la cuenta como clave. Los handlers en paralelo pueden terminar primero el retiro: se rechaza y ese saldo acaba en 100. En el log, las dos operaciones comparten partición y se aplican en orden: 50. El log tiene 3 particiones y su grupo 5 miembros, así que 2 quedan ociosos; el tráfico de otras cuentas pone el 60 % de sus registros en una clave caliente, y la partición de esa clave carga con la mayor parte del trabajo."
    ),
    example!(
        "retry-jitter",
        Failures,
        "Retries in lockstep vs retries with jitter",
        "Reintentos sincronizados frente a reintentos con jitter",
        "Cuarenta trabajos llegan a la vez mientras una dependencia está caída (los primeros 3 s). Todos los primeros intentos fallan en el mismo instante. La suscripción 'lockstep' reintenta con espera exponencial y sin jitter: los cuarenta vuelven en el mismo instante y golpean juntos la dependencia, una y otra vez. La suscripción 'jittered' elige cada espera al azar entre 0 y la espera exponencial: los reintentos se dispersan y solo unos pocos se ejecutan a la vez."
    ),
    example!(
        "untrusted-source",
        Failures,
        "Stolen credentials: who checks the source's authority",
        "Credenciales robadas: quién verifica la autoridad del origen",
        "Los pagos de un banco llegan a dos suscripciones. 'payments-api' deposita 100 en la cuenta 42 y 50 en la cuenta 7, y luego retira 30 de la 42. Alguien robó las credenciales de 'partner-api', un socio autorizado a publicar pagos de sus propios clientes: con ellas llegan dos retiros que parecen válidos (100 de la 42, 50 de la 7) para un tenant sobre el que el socio no tiene autoridad. 'checked' verifica la autoridad del origen de cada efecto: los dos acaban en su cola de mensajes muertos al primer intento, porque esperar no los va a autorizar. 'unchecked' actúa sobre todo lo que entrega el broker, porque viene de nuestro propio broker: los dos retiros se aplican, y después el retiro real de 30 se rechaza por falta de fondos. También se robaron las credenciales de 'reports', pero el exchange solo deja publicar a 'payments-api' y 'partner-api': a los 6 s el broker rechaza su retiro de entrada, y nada llega a ninguna de las dos suscripciones. Las cuentas 42 y 7 terminan en 70 y 50 en 'checked', y en 0 y 0 en 'unchecked'."
    ),
    example!(
        "replay-window",
        Failures,
        "A replay window refuses a legitimate redrive",
        "Una ventana de repetición rechaza un reenvío legítimo",
        "Los pagos llegan a dos suscripciones a 2 por segundo durante 30 s; la dependencia de cada handler está caída de los 5 s a los 15 s y se permiten dos intentos con un segundo entre ellos, así que los pagos de la caída acaban en la cola de mensajes muertos. 'windowed' además rechaza cualquier mensaje creado hace más de 20 s, contra comandos repetidos; 'open' no tiene esa ventana. La dependencia vuelve a los 15 s; a los 40 s un operador reenvía las dos colas de mensajes muertos. 'open' aplica una vez cada pago reenviado (su inbox sigue conociendo cada id). 'windowed' los rechaza todos otra vez: son legítimos, pero tienen más de 20 s, y una ventana no distingue una repetición de un trabajo que esperó. Su inbox ya detiene las repeticiones verdaderas por su id."
    ),
    example!(
        "admission-control",
        Load,
        "An unbounded queue vs admission control",
        "Una cola sin límite frente al control de admisión",
        "Dos servicios de reportes reciben 30 solicitudes por segundo cada uno durante 60 s, y los dos workers de cada cola terminan 20 por segundo. La cola 'unbounded' lo acepta todo: nada falla, pero la solicitud más antigua espera cada vez más. La cola 'admitted' rechaza trabajo nuevo mientras su mensaje en espera más antiguo tenga más de 5 s: la espera se mantiene corta, y las solicitudes rechazadas son trabajos fallidos que los clientes pueden ver en el estado de su trabajo."
    ),
    example!(
        "dep-retry-storm",
        Failures,
        "A retry storm against a slow database",
        "Una tormenta de reintentos contra una base de datos lenta",
        "Una tormenta de reintentos. Llegan 70 pedidos por segundo; cada handler llama a la base de datos, que atiende 10 peticiones a la vez en 0,1 s de media (100 por segundo); quien llama deja de esperar a los 0,5 s y reintenta enseguida, desde cien huecos de handler. La base de datos trabaja a mitad de velocidad durante 3 s (de 10 s a 13 s). Las llamadas agotan su tiempo de espera, cada una vuelve al momento como reintento y la base de datos recibe unas 200 llamadas por segundo, casi tres veces lo que envían los productores, mientras casi ninguna recibe respuesta a tiempo."
    ),
    example!(
        "dep-backoff",
        Failures,
        "Backoff with jitter spreads the storm, but does not stop it",
        "La espera con jitter dispersa la tormenta, no la frena",
        "La tormenta de dep-retry-storm, con espera exponencial limitada y jitter completo: un mensaje fallido espera un tiempo al azar de hasta 0,5 s, luego hasta 1 s, 2 s… (como mucho 8 s) antes del siguiente intento. Al principio los reintentos se dispersan y la base de datos da abasto (las llamadas se quedan cerca del ritmo de llegada, mientras que con reintentos inmediatos ya se duplican). Pero en cuanto su fila es más larga que el tiempo de espera, hasta los primeros intentos fallan por tiempo, y los reintentos de todos esos mensajes se acumulan: el goodput (trabajo útil por segundo) se hunde un poco más tarde y sigue hundido. La espera dispersa los reintentos; no detiene el trabajo desperdiciado."
    ),
    example!(
        "dep-retry-budget",
        Failures,
        "A retry budget stops the storm",
        "Un presupuesto de reintentos detiene la tormenta",
        "La tormenta de dep-retry-storm, con un presupuesto de reintentos (un cubo de fichas compartido por quienes llaman, como el retry throttling de gRPC): cada llamada fallida gasta una ficha, cada éxito devuelve una décima, y un mensaje fallido solo se reintenta mientras quede más de la mitad de las 10 fichas. Durante la lentitud el presupuesto se agota, los mensajes fallidos van a la cola de mensajes muertos (DLQ) en vez de volver, la fila de la base de datos se vacía y el goodput se recupera; los pedidos de la DLQ pueden reenviarse (redrive) más tarde."
    ),
    example!(
        "dep-breaker",
        Failures,
        "A circuit breaker stops the storm",
        "Un disyuntor (circuit breaker) detiene la tormenta",
        "La tormenta de dep-retry-storm, con un disyuntor (circuit breaker), tres intentos por mensaje y esperas cortas con jitter: cinco llamadas fallidas seguidas abren el disyuntor durante 2 s, y mientras tanto las llamadas fallan al instante sin llegar a la base de datos; después pasa una llamada de prueba y, si recibe respuesta, el disyuntor se cierra. Los mensajes que fallan tres veces van a la cola de mensajes muertos (DLQ) en vez de volver; la base de datos vacía su fila mientras el disyuntor está abierto, y el goodput se recupera poco después de la lentitud."
    ),
    example!(
        "dep-scale-out",
        Load,
        "More consumers, less goodput: a saturated database",
        "Más consumidores, menos goodput: una base de datos saturada",
        "Añadir consumidores a una base de datos saturada reduce el goodput. Llegan 400 solicitudes por segundo; la base de datos tarda 0,01 s por petición cuando va sola, y cada otra petición en curso la hace un 20 % más lenta (contención); quien llama deja de esperar a los 0,1 s. Dos consumidores con 5 huecos cada uno mantienen 10 peticiones en curso: cada una tarda 0,028 s y se responden unas 357 por segundo, algo menos que el ritmo de llegada. A los 20 s se pasa a 10 consumidores: 50 peticiones en curso tardan 0,108 s cada una, más que el tiempo de espera, así que casi todas las respuestas llegan tarde y el goodput cae casi a cero mientras la base de datos está más ocupada que nunca."
    ),
    example!(
        "dep-metastable",
        Failures,
        "A metastable failure: the trigger ends, the collapse stays",
        "Un fallo metaestable: el detonante termina, el colapso sigue",
        "Un fallo metaestable. Llegan 70 pedidos por segundo; cada handler llama a la base de datos, que atiende 10 peticiones a la vez en 0,1 s de media (100 por segundo) y cuyos clientes dejan de esperar a los 0,5 s. Hay sesenta huecos de handler y reintentos inmediatos. La base de datos va cinco veces más lenta durante 3 s (de 10 s a 13 s): las peticiones se acumulan, quienes llaman agotan su espera y reintentan al momento, y la base de datos sigue trabajando en peticiones que ya nadie espera. Cuando la lentitud termina, el goodput sigue cerca de cero: la fila de peticiones abandonadas es más larga que el tiempo de espera, así que toda respuesta llega tarde, y los reintentos la mantienen larga. Solo descartar carga (control de admisión) lo recupera."
    ),
    example!(
        "dep-admission",
        Failures,
        "Admission control prevents the metastable failure",
        "El control de admisión evita el fallo metaestable",
        "El fallo metaestable de dep-metastable, evitado con control de admisión en la base de datos: mientras su petición más antigua lleve esperando más de 0,3 s, una llamada nueva se rechaza al instante, y una petición que esperó más se descarta sin atenderla cuando le llega el turno. La base de datos nunca trabaja para quien ya se rindió, así que en cuanto termina la lentitud vuelve a responder a tiempo y el goodput regresa al ritmo de llegada."
    ),
];
