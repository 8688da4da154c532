import type { CopyFacts, DeliveryFact, Locale } from "./locale.js";

const delivery = (d: DeliveryFact): string =>
  d.kind === "free" ? "El envío es gratuito" : d.kind === "paid" ? `El envío cuesta ${d.price}` : "Enviamos rápidamente";

const priceLine = (f: CopyFacts): string =>
  f.originalPrice ? `Ahora ${f.price} en lugar de ${f.originalPrice}.` : `Solo ${f.price}.`;

/** Spanish phrases (informal "tú", as is usual in Spanish marketing copy). */
export const es: Locale = {
  code: "es",
  headlines: {
    neutral: [(f) => `${f.title}: pensado para marcar la diferencia`, (f) => `Descubre ${f.title}`],
    luxury: [(f) => `${f.title}: calidad sin concesiones`, (f) => `Date el gusto con ${f.title}`],
    budget: [(f) => `${f.title} a un precio imbatible`, (f) => `${f.title} por solo ${f.price}`],
    eco: [(f) => `${f.title}: una elección que respeta el planeta`, (f) => `${f.title}, la opción sostenible`],
    urgency: [(f) => `${f.title}: oferta limitada, no esperes`, (f) => `Última oportunidad para conseguir ${f.title}`],
    gift: [(f) => `${f.title}: el regalo que nunca olvidarán`, (f) => `Regala ${f.title} y saca una sonrisa`],
  },
  subheadlines: {
    neutral: {
      physical: (f) => `${f.summary ?? "Todo lo que esperas, nada que sobre."} ${priceLine(f)}`,
      service: (f) => `${f.summary ?? "Un servicio pensado para tus necesidades."} ${priceLine(f)}`,
    },
    luxury: {
      physical: (f) => `Materiales de primera y acabados impecables, para quien busca lo mejor. ${priceLine(f)}`,
      service: (f) => `Un servicio exclusivo y atento, para quien exige excelencia. ${priceLine(f)}`,
    },
    budget: {
      physical: (f) => `Gran calidad sin gastar de más. ${priceLine(f)}`,
      service: (f) => `Resultados profesionales a un precio justo. ${priceLine(f)}`,
    },
    eco: {
      physical: (f) => `Diseñado para durar y fabricado con respeto por las personas y el planeta. ${priceLine(f)}`,
      service: (f) => `Un servicio responsable con una huella mínima. ${priceLine(f)}`,
    },
    urgency: {
      physical: (f) => `Existencias limitadas y este precio no durará. ${priceLine(f)}`,
      service: (f) => `Quedan pocas plazas a este precio. ${priceLine(f)}`,
    },
    gift: {
      physical: (f) => `Un regalo especial para las personas que más te importan. ${priceLine(f)}`,
      service: (f) => `Una experiencia para regalar en cualquier ocasión. ${priceLine(f)}`,
    },
  },
  customSubheadline: (f, angle) => `${f.title}: ${angle}. ${priceLine(f)}`,
  ctaLabel: { physical: "Comprar ahora", service: "Reservar ahora" },
  benefitsTitle: (f) => `¿Por qué elegir ${f.title}?`,
  toneBenefit: {
    luxury: {
      physical: () => ({ title: "Calidad premium", text: "Materiales seleccionados con cuidado y un acabado que se nota en cada detalle." }),
      service: () => ({ title: "Una experiencia excepcional", text: "Atención personalizada en cada paso, por profesionales con experiencia." }),
    },
    budget: {
      physical: (f) => ({ title: "La mejor relación calidad-precio", text: `Todo lo que necesitas por ${f.price}, sin costes ocultos.` }),
      service: (f) => ({ title: "Precio justo", text: `Una tarifa clara de ${f.price}, sin sorpresas.` }),
    },
    eco: {
      physical: () => ({ title: "Una elección responsable", text: "Hecho para durar: compras menos y desperdicias menos." }),
      service: () => ({ title: "Bajo impacto", text: "Trabajamos respetando a las personas y el medio ambiente." }),
    },
    urgency: {
      physical: () => ({ title: "Existencias limitadas", text: "Oferta válida hasta agotar existencias. Haz tu pedido hoy." }),
      service: () => ({ title: "Plazas limitadas", text: "Las fechas se llenan rápido. Reserva hoy mismo." }),
    },
    gift: {
      physical: () => ({ title: "El regalo perfecto", text: "Un detalle que encanta, para cumpleaños, fiestas o porque sí." }),
      service: () => ({ title: "Un regalo inolvidable", text: "Regala una experiencia en lugar de otro objeto más." }),
    },
  },
  aboutBenefit: (f) => ({ title: `Lo que ofrece ${f.title}`, text: f.summary ?? f.title }),
  savingsBenefit: (f) => ({
    title: `Ahorra ${f.savings}`,
    text: `Paga ${f.price} en lugar de ${f.originalPrice}: un ${f.savingsPercent} % de descuento.`,
  }),
  benefitPool: {
    physical: [
      () => ({ title: "Calidad que se nota", text: "Probado y revisado antes de cada envío." }),
      (f) => ({ title: "Directo a tu puerta", text: `${delivery(f.delivery)} y puedes seguir tu pedido hasta la entrega.` }),
      () => ({ title: "Devoluciones fáciles", text: "¿No te convence? Devuélvelo en un plazo de 30 días." }),
      () => ({ title: "Pedido seguro", text: "Tus datos están protegidos y solo se usan para tu pedido." }),
      () => ({ title: "Atención cercana", text: "Una persona real responde a tus preguntas, antes y después de la compra." }),
    ],
    service: [
      () => ({ title: "Profesionales con experiencia", text: "Personas expertas que se preocupan por el resultado." }),
      () => ({ title: "Reserva flexible", text: "Elige la fecha que mejor te venga; te confirmamos enseguida." }),
      () => ({ title: "Tu satisfacción es lo primero", text: "Escuchamos, nos adaptamos y nos aseguramos de que quedes contento." }),
      () => ({ title: "Precios transparentes", text: "Conoces el precio antes de reservar." }),
      () => ({ title: "Atención rápida", text: "¿Dudas antes o después de tu cita? Estamos para ayudarte." }),
    ],
  },
  galleryTitle: (f) => `${f.title} en imágenes`,
  galleryAlt: (f, i) => `${f.title}, imagen ${i}`,
  socialProofTitle: "Lo que dicen nuestros clientes",
  quotes: {
    physical: [
      (f) => `${f.title} es justo lo que buscaba. Muy buena calidad.`,
      () => "Envío rápido y bien embalado. Lo recomiendo.",
      () => "Excelente relación calidad-precio. Ya he vuelto a pedir.",
    ],
    service: [
      (f) => `${f.title} superó mis expectativas. Muy profesional.`,
      () => "Reservar fue muy fácil y todo fue puntual.",
      () => "Atentos, amables y eficaces. Volveré a reservar.",
    ],
  },
  people: [
    { author: "Lucía G.", role: { physical: "Compradora verificada", service: "Clienta verificada" } },
    { author: "Javier R.", role: { physical: "Comprador verificado", service: "Cliente verificado" } },
    { author: "Marta S.", role: { physical: "Clienta habitual", service: "Clienta habitual" } },
    { author: "Carlos P.", role: { physical: "Comprador verificado", service: "Cliente verificado" } },
    { author: "Elena V.", role: { physical: "Clienta habitual", service: "Clienta habitual" } },
  ],
  faqTitle: "Preguntas frecuentes",
  faq: {
    physical: (f) => [
      { question: "¿Cuánto cuesta el envío?", answer: `${delivery(f.delivery)}. Los pedidos suelen llegar en 2 a 5 días laborables.` },
      { question: "¿Puedo devolverlo?", answer: "Sí. Tienes 30 días para devolver el producto en su estado original y recibir el reembolso completo." },
      { question: "¿Cómo hago el pedido?", answer: "Rellena el formulario al final de esta página. Te contactamos para confirmar tu pedido." },
      { question: "¿Cuál es el precio?", answer: `${f.title} cuesta ${f.price}.` },
    ],
    service: (f) => [
      { question: "¿Cómo reservo?", answer: "Elige una fecha en el formulario de abajo. Te confirmamos la reserva por correo electrónico." },
      { question: "¿Puedo cancelar o cambiar la fecha?", answer: "Sí, sin coste hasta 24 horas antes de tu cita." },
      { question: "¿Cuál es el precio?", answer: `${f.title} cuesta ${f.price}, sin gastos ocultos.` },
      { question: "¿Y si tengo una petición especial?", answer: "Indícala en el campo de notas y nos adaptaremos." },
    ],
  },
  offerTitle: {
    neutral: "Nuestra oferta",
    luxury: "Una oferta exclusiva",
    budget: "Nuestro mejor precio",
    eco: "Una oferta responsable",
    urgency: "Oferta por tiempo limitado",
    gift: "El regalo ideal",
  },
  offerText: {
    physical: (f) => `${f.title} por ${f.price}${f.originalPrice ? ` en lugar de ${f.originalPrice}` : ""}. ${delivery(f.delivery)}.`,
    service: (f) => `${f.title} por ${f.price}${f.originalPrice ? ` en lugar de ${f.originalPrice}` : ""}. Reserva en pocos clics.`,
  },
  guarantee: {
    physical: "Garantía de devolución de 30 días",
    service: "Cancelación gratuita hasta 24 horas antes",
  },
  checkoutTitle: { physical: "Haz tu pedido", service: "Reserva tu cita" },
  submitLabel: { physical: "Confirmar mi pedido", service: "Confirmar mi reserva" },
  checkoutNote: {
    physical: "No pagas nada ahora: te contactamos para confirmar tu pedido.",
    service: "No pagas nada ahora: te confirmamos la reserva por correo electrónico.",
  },
  fieldLabels: { name: "Nombre completo", phone: "Teléfono", address: "Dirección", city: "Ciudad", email: "Correo electrónico", date: "Fecha preferida", notes: "Notas" },
  ui: {
    deliveryPrice: (p) => `Envío: ${p}`,
    freeDelivery: "Envío gratuito",
    save: (p) => `Ahorra un ${p} %`,
    requiredHint: "Los campos marcados con * son obligatorios.",
    requiredMark: "obligatorio",
    choose: "Elige…",
    previewNote: "Vista previa: el formulario está desactivado hasta que se publique la página.",
    previewBanner: "Vista previa",
    confirmationTitle: "¡Gracias!",
    confirmationText: {
      physical: (t) => `Hemos recibido tu pedido de ${t}. Te contactaremos pronto para confirmarlo.`,
      service: (t) => `Hemos recibido tu reserva de ${t}. Te la confirmaremos pronto.`,
    },
    yourDetails: "Tus datos",
    back: "Volver a la página",
    notFoundTitle: "Página no encontrada",
    notFoundText: "Esta página no existe o ya no está disponible.",
  },
};
