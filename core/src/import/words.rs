//! The import's notes and errors in English and Spanish. Names from the file are shown
//! as given (already made safe to print); numbers the way each language writes them.

use super::{ImportError, Item, Note, ShapeProblem};
use crate::lang::{number, Lang};

fn item_en(item: Item) -> &'static str {
    match item {
        Item::Queue => "queue",
        Item::Exchange => "exchange",
        Item::Binding => "binding",
        Item::Policy => "policy",
    }
}

fn item_es(item: Item) -> &'static str {
    match item {
        Item::Queue => "la cola",
        Item::Exchange => "el exchange",
        Item::Binding => "el binding",
        Item::Policy => "la política",
    }
}

fn items_es(item: Item) -> &'static str {
    match item {
        Item::Queue => "colas",
        Item::Exchange => "exchanges",
        Item::Binding => "bindings",
        Item::Policy => "políticas",
    }
}

pub(super) fn note_en(note: &Note) -> String {
    let n = |x: f64| number(x, 2, Lang::En);
    match note {
        Note::SectionIgnored { section, count } => format!("Ignored “{section}” ({count} in the file): the model has no accounts, permissions or runtime parameters."),
        Note::OtherVhost { item, name, vhost } => format!("Ignored {} “{name}”: it is in virtual host “{vhost}”, and only one virtual host is imported.", item_en(*item)),
        Note::ExchangeTypeIgnored { exchange, kind } => format!("Ignored exchange “{exchange}” and its bindings: type “{kind}” is not one the model routes (direct, fanout, topic)."),
        Note::ExchangeRenamed { exchange, now } => format!("Exchange “{exchange}” has a queue's name; it is imported as “{now}”."),
        Note::ExchangeBindingIgnored { source, destination } => format!("Ignored the binding from “{source}” to exchange “{destination}”: exchange-to-exchange bindings are not modelled."),
        Note::BindingIgnored { source, destination } => format!("Ignored the binding from “{source}” to “{destination}”: one of them was not imported."),
        Note::BindingArgumentsIgnored { source, destination } => format!("The binding from “{source}” to “{destination}” routes on its key alone: its arguments are ignored."),
        Note::SettingIgnored { item, name, setting } => format!("Ignored “{setting}” on {} “{name}”: the model has no such setting.", item_en(*item)),
        Note::ValueIgnored { item, name, setting, value } => format!("Ignored “{setting}” = {value} on {} “{name}”: the model cannot take that value.", item_en(*item)),
        Note::DeliveryLimitOnClassic { queue } => format!("Ignored the delivery limit of classic queue “{queue}”: RabbitMQ enforces it on quorum queues only."),
        Note::StreamQueueIgnored { queue } => format!("Ignored stream “{queue}”: RabbitMQ streams are not imported (the model's logs are, from a Kafka description)."),
        Note::DeadLetterKeptInQueue { queue, exchange, routing_key } => match routing_key {
            Some(key) => format!("Queue “{queue}” dead-letters to exchange “{exchange}” with key “{key}”: here its dead letters stay in the queue's own dead-letter queue."),
            None => format!("Queue “{queue}” dead-letters to exchange “{exchange}”: here its dead letters stay in the queue's own dead-letter queue."),
        },
        Note::RejectPublishDlxAsReject { queue } => format!("Queue “{queue}” uses reject-publish-dlx: publishes are refused as with reject-publish, but the refused message is not dead-lettered."),
        Note::PolicyPatternTooComplex { policy, pattern } => format!("Ignored policy “{policy}”: its pattern “{pattern}” is more than the importer reads (^name$, prefixes, .*)."),
        Note::PolicyNotForQueues { policy, apply_to } => format!("Ignored policy “{policy}”: it applies to {apply_to}, not to queues."),
        Note::PolicyKeyIgnored { policy, key } => format!("Ignored “{key}” in policy “{policy}”: the model has no such setting."),
        Note::NameTooLong { item, name } => format!("Ignored {} “{name}”: its name is longer than the model's {} characters.", item_en(*item), crate::scenario::limits::NAME_LEN_MAX),
        Note::TooMany { item, kept, dropped } => format!("Kept the first {kept} of each {}; {dropped} more were left out (the model's limit).", item_en(*item)),
        Note::ProducerAssumed { target, rate_per_s, count } => format!("Assumed a producer publishing to “{target}”: {} messages per second, {count} in all.", n(*rate_per_s)),
        Note::ConsumersAssumed { queues, service_s, prefetch } => format!("Assumed one consumer per queue ({queues} in all): {} s per message, prefetch {prefetch}, ack after the effect commits.", n(*service_s)),
        Note::ReplicationIgnored { topic, setting } => format!("Ignored “{setting}” for topic “{topic}”: replication is not modelled."),
        Note::LeaderAckOnly { topic } => format!("A producer to topic “{topic}” has acks=1: the leader's acknowledgement is its confirm; what the leader's crash would lose before replicating is not modelled."),
        Note::AcksRefused { topic, value } => format!("A producer to topic “{topic}” has acks = {value}, which Kafka refuses: taken as all, the default."),
        Note::GroupAssumed { topic, members } => format!("Assumed a consumer group reading topic “{topic}”: {members} members, offsets committed after processing."),
        Note::GroupRenamed { group, topic, name } => format!("Consumer group “{group}” reading topic “{topic}” is modelled as a group of its own, named “{name}”, since each group here has one name."),
        Note::KeylessSpread { topic } => format!("Records without a key are spread over the partitions of “{topic}” by message id, so they keep no order."),
    }
}

pub(super) fn note_es(note: &Note) -> String {
    let n = |x: f64| number(x, 2, Lang::Es);
    match note {
        Note::SectionIgnored { section, count } => format!("Se ignoró «{section}» ({count} en el archivo): el modelo no tiene cuentas, permisos ni parámetros de ejecución."),
        Note::OtherVhost { item, name, vhost } => format!("Se ignoró {} «{name}»: está en el host virtual «{vhost}» y solo se importa un host virtual.", item_es(*item)),
        Note::ExchangeTypeIgnored { exchange, kind } => format!("Se ignoró el exchange «{exchange}» con sus bindings: el modelo no enruta el tipo «{kind}» (sí direct, fanout y topic)."),
        Note::ExchangeRenamed { exchange, now } => format!("El exchange «{exchange}» tiene el nombre de una cola; se importa como «{now}»."),
        Note::ExchangeBindingIgnored { source, destination } => format!("Se ignoró el binding de «{source}» al exchange «{destination}»: el modelo no tiene bindings entre exchanges."),
        Note::BindingIgnored { source, destination } => format!("Se ignoró el binding de «{source}» a «{destination}»: uno de los dos no se importó."),
        Note::BindingArgumentsIgnored { source, destination } => format!("El binding de «{source}» a «{destination}» enruta solo por su clave: se ignoran sus argumentos."),
        Note::SettingIgnored { item, name, setting } => format!("Se ignoró «{setting}» en {} «{name}»: el modelo no tiene ese ajuste.", item_es(*item)),
        Note::ValueIgnored { item, name, setting, value } => format!("Se ignoró «{setting}» = {value} en {} «{name}»: el modelo no admite ese valor.", item_es(*item)),
        Note::DeliveryLimitOnClassic { queue } => format!("Se ignoró el límite de entregas de la cola clásica «{queue}»: RabbitMQ solo lo aplica a las colas quorum."),
        Note::StreamQueueIgnored { queue } => format!("Se ignoró el stream «{queue}»: los streams de RabbitMQ no se importan (los logs del modelo sí, desde una descripción de Kafka)."),
        Note::DeadLetterKeptInQueue { queue, exchange, routing_key } => match routing_key {
            Some(key) => format!("La cola «{queue}» envía sus mensajes muertos al exchange «{exchange}» con la clave «{key}»: aquí quedan en la cola de mensajes muertos (DLQ) de la propia cola."),
            None => format!("La cola «{queue}» envía sus mensajes muertos al exchange «{exchange}»: aquí quedan en la cola de mensajes muertos (DLQ) de la propia cola."),
        },
        Note::RejectPublishDlxAsReject { queue } => format!("La cola «{queue}» usa reject-publish-dlx: las publicaciones se rechazan como con reject-publish, pero el mensaje rechazado no va a la DLQ."),
        Note::PolicyPatternTooComplex { policy, pattern } => format!("Se ignoró la política «{policy}»: su patrón «{pattern}» va más allá de lo que lee el importador (^nombre$, prefijos, .*)."),
        Note::PolicyNotForQueues { policy, apply_to } => format!("Se ignoró la política «{policy}»: se aplica a {apply_to}, no a colas."),
        Note::PolicyKeyIgnored { policy, key } => format!("Se ignoró «{key}» en la política «{policy}»: el modelo no tiene ese ajuste."),
        Note::NameTooLong { item, name } => format!("Se ignoró {} «{name}»: su nombre supera los {} caracteres que admite el modelo.", item_es(*item), crate::scenario::limits::NAME_LEN_MAX),
        Note::TooMany { item, kept, dropped } => format!("Se conservaron los primeros {kept} {}; quedaron fuera {dropped} más (el límite del modelo).", items_es(*item)),
        Note::ProducerAssumed { target, rate_per_s, count } => format!("Se supuso un productor que publica en «{target}»: {} mensajes por segundo, {count} en total.", n(*rate_per_s)),
        Note::ConsumersAssumed { queues, service_s, prefetch } => format!("Se supuso un consumidor por cola ({queues} en total): {} s por mensaje, prefetch {prefetch}, ack después del commit del efecto.", n(*service_s)),
        Note::ReplicationIgnored { topic, setting } => format!("Se ignoró «{setting}» del topic «{topic}»: el modelo no tiene replicación."),
        Note::LeaderAckOnly { topic } => format!("Un productor del topic «{topic}» tiene acks=1: la confirmación del líder es su confirm; lo que perdería una caída del líder antes de replicar no se modela."),
        Note::AcksRefused { topic, value } => format!("Un productor del topic «{topic}» tiene acks = {value}, que Kafka rechaza: se toma all, el valor por defecto."),
        Note::GroupAssumed { topic, members } => format!("Se supuso un grupo de consumidores que lee el topic «{topic}»: {members} miembros, commit del offset después de procesar."),
        Note::GroupRenamed { group, topic, name } => format!("El grupo de consumidores «{group}» que lee el topic «{topic}» se modela como un grupo aparte, llamado «{name}», porque aquí cada grupo tiene un nombre propio."),
        Note::KeylessSpread { topic } => format!("Los registros sin clave se reparten entre las particiones de «{topic}» por id de mensaje, así que no guardan orden."),
    }
}

pub(super) fn error_en(e: &ImportError) -> String {
    match e {
        ImportError::TooLarge { bytes } => format!(
            "The file is too large ({} bytes; at most {}).",
            number(*bytes as f64, 0, Lang::En),
            number(super::INPUT_BYTES_MAX as f64, 0, Lang::En)
        ),
        ImportError::NotJson { detail } => format!("The file is not valid JSON: {detail}."),
        ImportError::Shape { at, problem } => {
            let what = match problem {
                ShapeProblem::NotAnObject => "is not a JSON object".to_string(),
                ShapeProblem::NotAList => "is not a list".to_string(),
                ShapeProblem::MissingText => "is missing or not text".to_string(),
                ShapeProblem::Invalid { detail } => detail.clone(),
            };
            // serde's words ("unknown field `x`, expected …") follow the place after a
            // colon; ours ("is not a list") complete a sentence about it.
            let at = match (at.is_empty(), problem) {
                (true, ShapeProblem::Invalid { .. }) => String::new(),
                (true, _) => "the file ".to_string(),
                (false, ShapeProblem::Invalid { .. }) => format!("“{at}”: "),
                (false, _) => format!("“{at}” "),
            };
            format!("The file is not in the expected form: {at}{what}.")
        }
        ImportError::Empty { left_out } => format!(
            "There is nothing to simulate: the file has no queue or topic the model can import.{}",
            why_left_out(left_out, Lang::En)
        ),
        ImportError::Invalid(e) => format!("The imported scenario is not valid: {e}."),
    }
}

pub(super) fn error_es(e: &ImportError) -> String {
    match e {
        ImportError::TooLarge { bytes } => format!("El archivo es demasiado grande ({} bytes; como mucho {}).", number(*bytes as f64, 0, Lang::Es), number(super::INPUT_BYTES_MAX as f64, 0, Lang::Es)),
        ImportError::NotJson { detail } => format!(
            "El archivo no es JSON válido: {}.",
            crate::refusal::serde_problem_in(detail, Lang::Es)
        ),
        ImportError::Shape { at, problem } => {
            let what = match problem {
                ShapeProblem::NotAnObject => "no es un objeto JSON".to_string(),
                ShapeProblem::NotAList => "no es una lista".to_string(),
                ShapeProblem::MissingText => "falta o no es texto".to_string(),
                ShapeProblem::Invalid { detail } => crate::refusal::serde_problem_in(detail, Lang::Es),
            };
            let at = match (at.is_empty(), problem) {
                (true, ShapeProblem::Invalid { .. }) => String::new(),
                (true, _) => "el archivo ".to_string(),
                (false, ShapeProblem::Invalid { .. }) => format!("«{at}»: "),
                (false, _) => format!("«{at}» "),
            };
            format!("El archivo no tiene la forma esperada: {at}{what}.")
        }
        ImportError::Empty { left_out } => format!("No hay nada que simular: el archivo no tiene ninguna cola ni topic que el modelo pueda importar.{}", why_left_out(left_out, Lang::Es)),
        ImportError::Invalid(e) => format!(
            "El escenario importado no es válido: {}.",
            e.text_in(Lang::Es)
        ),
    }
}

/// Most reasons an empty import's refusal quotes; the others are counted.
const WHY_SHOWN: usize = 3;

/// After an empty import's refusal: why its queues were left out, one sentence each (the
/// first few), then how many more were.
fn why_left_out(notes: &[Note], lang: Lang) -> String {
    let mut out: String = notes
        .iter()
        .take(WHY_SHOWN)
        .map(|n| format!(" {}", n.describe(lang)))
        .collect();
    let more = notes.len().saturating_sub(WHY_SHOWN);
    out += &match (lang, more) {
        (_, 0) => String::new(),
        (Lang::En, 1) => " One more queue was left out too.".into(),
        (Lang::En, n) => format!(" {n} more queues were left out too."),
        (Lang::Es, 1) => " También se dejó fuera otra cola.".into(),
        (Lang::Es, n) => format!(" También se dejaron fuera otras {n} colas."),
    };
    out
}
