import type { Locale } from "./locale.js";

/** Spanish phrases (informal "tú", as most Spanish-language shops write). */
export const es: Locale = {
  code: "es",
  toneLine: {
    neutral: { physical: "Haz tu pedido directamente en esta página.", service: "Reserva directamente en esta página." },
    luxury: { physical: "Date un capricho.", service: "Date un capricho." },
    budget: { physical: "El precio, indicado con claridad.", service: "El precio, indicado con claridad." },
    eco: { physical: "Elige con conciencia.", service: "Elige con conciencia." },
    urgency: { physical: "Haz tu pedido hoy.", service: "Reserva hoy." },
    gift: { physical: "Una idea para regalar.", service: "Una idea para regalar." },
  },
  ctaLabel: { physical: "Comprar ahora", service: "Reservar ahora" },
  detailsTitle: "En detalle",
  galleryTitle: "Más fotos",
  galleryAlt: (title, i) => `${title}, foto ${i}`,
  checkoutTitle: { physical: "Haz tu pedido", service: "Reserva tu cita" },
  submitLabel: { physical: "Confirmar pedido", service: "Confirmar reserva" },
  footer: {
    physical: "Los datos que escribes en el formulario de pedido se envían al vendedor junto con tu pedido. En esta página no se cobra ningún pago.",
    service: "Los datos que escribes en el formulario de reserva se envían al proveedor junto con tu solicitud de reserva. En esta página no se cobra ningún pago.",
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
      physical: "Hemos recibido tu pedido.",
      service: "Hemos recibido tu solicitud de reserva.",
    },
    yourDetails: "Tus datos",
    back: "Volver a la página",
    notFoundTitle: "Página no encontrada",
    notFoundText: "Esta página no existe o ya no está disponible.",
  },
};
